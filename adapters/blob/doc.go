// Package blob keeps uploaded audio on local disk and signs the upload
// addresses that lead to it: the embedded (single-machine) adapters of
// ports.BlobStore and ports.UploadSigner. Production uses an S3-compatible
// store instead; the contracts are the same.
//
// Writes are atomic: a blob is streamed into a temporary file next to its
// final place, flushed to disk and renamed, so a reader sees either nothing or
// the whole blob, never a partial upload. Every access goes through an
// os.Root, so a key can never reach outside the store's directory even if the
// key checks were bypassed or the directory held a hostile symbolic link.
package blob

import "github.com/hyscribe/hyscribe/ports"

// The adapters must keep honouring their ports.
var (
	_ ports.BlobStore    = (*Disk)(nil)
	_ ports.UploadSigner = (*Signer)(nil)
)
