package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
)

// makeHour writes an MP3 of at least secs seconds to path by repeating the
// audio frames of src (its ID3 tags and Xing/Info frame left out), and
// returns its size and length in seconds.
func makeHour(src []byte, path string, secs float64) (int64, float64, error) {
	frames, frameSecs, err := audioFrames(src)
	if err != nil {
		return 0, 0, err
	}
	f, err := os.Create(path)
	if err != nil {
		return 0, 0, err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var n int64
	total := 0.0
	for total < secs {
		for _, fr := range frames {
			w.Write(fr)
			n += int64(len(fr))
		}
		total += frameSecs
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return 0, 0, err
	}
	return n, total, f.Close()
}

var (
	bitratesV1 = []int{0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320}
	bitratesV2 = []int{0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160}
	rates      = map[int][]int{3: {44100, 48000, 32000}, 2: {22050, 24000, 16000}, 0: {11025, 12000, 8000}}
)

// audioFrames splits an MPEG layer III stream into its frames and returns
// them with their total length in seconds.
func audioFrames(b []byte) ([][]byte, float64, error) {
	if len(b) > 10 && string(b[:3]) == "ID3" {
		size := int(b[6]&0x7f)<<21 | int(b[7]&0x7f)<<14 | int(b[8]&0x7f)<<7 | int(b[9]&0x7f)
		skip := 10 + size
		if b[5]&0x10 != 0 {
			skip += 10
		}
		b = b[min(skip, len(b)):]
	}
	var frames [][]byte
	secs := 0.0
	for len(b) >= 4 {
		if b[0] != 0xff || b[1]&0xe0 != 0xe0 {
			b = b[1:] // junk between frames
			continue
		}
		version, layer := int(b[1]>>3&3), int(b[1]>>1&3)
		bi, si, pad := int(b[2]>>4), int(b[2]>>2&3), int(b[2]>>1&1)
		if version == 1 || layer != 1 || bi == 0 || bi == 15 || si == 3 {
			b = b[1:]
			continue
		}
		sr := rates[version][si]
		size, samples := 144000*bitratesV1[bi]/sr+pad, 1152
		if version != 3 {
			size, samples = 72000*bitratesV2[bi]/sr+pad, 576
		}
		if size > len(b) {
			break
		}
		fr := b[:size]
		head := fr[4:min(len(fr), 48)]
		if len(frames) == 0 && (bytes.Contains(head, []byte("Xing")) || bytes.Contains(head, []byte("Info")) || bytes.Contains(head, []byte("VBRI"))) {
			b = b[size:]
			continue
		}
		frames = append(frames, fr)
		secs += float64(samples) / float64(sr)
		b = b[size:]
	}
	if len(frames) == 0 {
		return nil, 0, errors.New("no MPEG layer III frames in the recording")
	}
	return frames, secs, nil
}

// format is the report: the markdown section written to docs/performance.md.
func format(r results) string {
	var b strings.Builder
	p := func(f string, a ...any) { fmt.Fprintf(&b, f, a...) }
	p("## API and pipeline under load (`make bench`)\n\n")
	p("Measured %s on this machine (%d CPUs, shared with other work; the load generators run on the\n", r.When.Format("2006-01-02 15:04 UTC"), r.CPUs)
	p("same cores as the service; loopback only), so read the ratios to bare fiber measured in the same run. Processes: on the embedded\n")
	p("default one `hyscribe serve` (SQLite, its own data dir); on Postgres one `hyscribe api`, one `hyscribe worker`\n")
	p("(all stages), Postgres on 127.0.0.1 (a schema of its own), the API's embedded Kafka (12\n")
	p("partitions), an instant fake speech engine and a local webhook receiver. Command: `make bench`\n")
	p("(`bench/run.sh` → `bench/load`). Pipeline jobs spread over %d accounts; the poll keys are one account's; Postgres pool per process: %s.\n\n", r.Accounts, poolText(r.Pool))
	p("| figure | measured | target | verdict |\n|---|---|---|---|\n")
	pollRows(p, "SQLite (`serve`)", r.SQLite.Keys, r.SQLite.Poll, r.SQLite.Limited, r.SQLite.Bare)
	pollRows(p, "Postgres (`api`)", r.Keys, r.Poll, r.Limited, r.Bare)
	upload := float64(r.Uploads) / r.UploadSecs
	p("| create + upload (%d jobs, 16 clients, %d KiB MP3) | %.0f jobs/s | ≥ 500 jobs/s | %s |\n", r.Uploads, 22, upload, verdict(upload >= 500))
	pipe := float64(r.PipelineJobs) / r.PipelineSecs
	p("| pipeline, backlog of %d jobs, instant engine (first to last transcribed) | %.0f jobs/s (%.0f jobs/s counting the worker's start, %.1f s) | ≥ 300 jobs/s | %s |\n",
		r.PipelineJobs, pipe, float64(r.PipelineJobs)/r.PipelineWallSec, r.PipelineWallSec, verdict(pipe >= 300))
	p("| during the backlog: machine CPU busy, CPU seconds of api / worker / their Postgres backends | %.0f%%, %.1f s / %.1f s / %.1f s of %.1f s (%.2f / %.2f / %.2f ms a job) | — | — |\n",
		r.PipeBusy*100, r.PipeAPICPU, r.PipeWorkerCPU, r.PipePostgresCPU, r.PipelineWallSec,
		1000*r.PipeAPICPU/float64(max(r.PipelineJobs, 1)), 1000*r.PipeWorkerCPU/float64(max(r.PipelineJobs, 1)), 1000*r.PipePostgresCPU/float64(max(r.PipelineJobs, 1)))
	p("| end to end, upload done → transcribed, %d jobs at %d/s | p50 %s, p99 %s, max %s | — | — |\n",
		r.PacedJobs, r.PacedRate, r.E2EP50.Round(time.Millisecond), r.E2EP99.Round(time.Millisecond), r.E2EMax.Round(time.Millisecond))
	p("| webhook deliveries (transcript_ready, during the backlog) | %.0f /s (%d) | — | — |\n", float64(r.Webhooks)/r.WebhookSecs, r.Webhooks)
	p("| worker peak RSS (VmHWM), one-hour MP3 (%.0f s, %.1f MB), fresh worker | %.1f MB (idle %.1f MB); job took %s | ≤ 150 MB | %s |\n",
		r.HourSecs, float64(r.HourBytes)/1e6, float64(r.WorkerHWMkB)/1024, float64(r.WorkerIdleHWMkB)/1024, r.HourTook.Round(time.Millisecond), verdict(r.WorkerHWMkB <= 150*1024))
	p("\nwrk: `-t2 -c%d`, %.0f s a run, `bench/poll.lua`. Status counts — SQLite poll: %v; one key: %v; Postgres poll: %v; one key: %v; socket errors %d/%d/%d/%d/%d/%d.\n",
		32, r.Poll.Seconds, r.SQLite.Poll.Statuses, r.SQLite.Limited.Statuses, r.Poll.Statuses, r.Limited.Statuses,
		r.SQLite.Poll.SocketErrors, r.SQLite.Limited.SocketErrors, r.SQLite.Bare.SocketErrors, r.Poll.SocketErrors, r.Limited.SocketErrors, r.Bare.SocketErrors)
	return b.String()
}

// pollRows are one store's poll figures beside the bare fiber run of the
// same bench: the 200 path, bare fiber, the ratio, the 429 path and its ratio.
func pollRows(p func(string, ...any), store string, keys int, poll, limited, bare wrkResult) {
	ms := func(us int) string { return fmt.Sprintf("%.2f ms", float64(us)/1000) }
	ratio, lratio := poll.rps()/bare.rps(), limited.rps()/bare.rps()
	// The keys' quota must outlast the run, or the cheaper 429 path mixes
	// into the 200 path's figure: then it is no verdict (raise -keys).
	pathOK, note := true, ""
	if n := poll.Statuses["429"]; n > 0 {
		pathOK, note = false, fmt.Sprintf(" (**not a 200-path figure**: %d answers were 429, the keys ran out of quota; raise the key count)", n)
	}
	p("| poll on %s, %d keys of one account rotated (200 path; rate limiter on) | %.0f req/s, p50 %s, p99 %s%s | p99 ≤ 15 ms | %s |\n",
		store, keys, poll.rps(), ms(poll.P50us), ms(poll.P99us), note, verdict(pathOK && poll.P99us <= 15000))
	p("| bare fiber handler, static JSON (`bench/barefiber`), run after it | %.0f req/s, p50 %s, p99 %s | — | — |\n", bare.rps(), ms(bare.P50us), ms(bare.P99us))
	p("| poll / bare fiber, %s | **%.1f%%** | ≥ 25%% | %s |\n", store, ratio*100, verdict(pathOK && ratio >= 0.25))
	p("| poll with one key on %s (the 429 path: over 60/min) | %.0f req/s, p50 %s, p99 %s; **%.1f%%** of bare fiber | ≥ 40%% | %s |\n",
		store, limited.rps(), ms(limited.P50us), ms(limited.P99us), lratio*100, verdict(lratio >= 0.40))
}

func poolText(n int) string {
	if n == 0 {
		return "pgx's default (max(4, CPUs) connections)"
	}
	return fmt.Sprintf("`pool_max_conns=%d`", n)
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "**missed**"
}

const (
	beginMark = "<!-- bench:api-pipeline begin (written by make bench) -->"
	endMark   = "<!-- bench:api-pipeline end -->"
)

// writeSection replaces this bench's section of the file (between its
// markers), or appends it, leaving every other section as it is.
func writeSection(path, body string) error {
	old, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	s := string(old)
	if s == "" {
		s = "# Performance\n\nFigures measured on the development machine. Each section belongs to the tool that writes it.\n"
	}
	section := beginMark + "\n" + body + endMark + "\n"
	if i, j := strings.Index(s, beginMark), strings.Index(s, endMark); i >= 0 && j > i {
		s = s[:i] + section + s[j+len(endMark):]
		s = strings.Replace(s, endMark+"\n\n", endMark+"\n", 1)
	} else {
		s = strings.TrimRight(s, "\n") + "\n\n" + section
	}
	return os.WriteFile(path, []byte(s), 0o644)
}
