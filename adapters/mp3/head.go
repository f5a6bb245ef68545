package mp3

// HeadBytes is how much of the start of a file CheckHead wants: enough for
// every signature Sniff knows and for a small file to be seen whole.
const HeadBytes = 16 << 10

// CheckHead refuses, from the first bytes of a file and its size, a file
// the process stage would certainly refuse, with the error the stage would
// give: an empty file, a known type other than MP3 (WAV, M4A, …), MPEG
// audio of another layer, or a file seen whole with no MPEG audio frame.
// nil means the file may be MP3: only the stage's full scan can tell. The
// web application calls it before a browser uploads a file.
func CheckHead(head []byte, size int64) error {
	if size == 0 {
		return errEmpty
	}
	if f, ok := sniff(head); ok {
		return notMP3Error(f)
	}
	if h, ok := parseHeader(head); ok {
		return checkLayer(h)
	}
	if int64(len(head)) < size || len(head) >= 3 && string(head[:3]) == "ID3" {
		return nil
	}
	for i := range head {
		if h, ok := parseHeader(head[i:]); ok && h.layer == 3 {
			return nil
		}
	}
	return errNoMP3
}
