// Package s3 keeps uploaded audio in an S3-compatible object store (MinIO,
// AWS S3, …) through minio-go: the production adapters of ports.BlobStore
// and ports.UploadSigner.
//
// Clients PUT their MP3 straight to the store with a pre-signed URL (AWS
// Signature V4, valid until the job's upload window closes); the store checks
// the signature and the expiry itself (403 otherwise), so the service never
// sees the bytes. The store announces each finished upload as a bucket
// notification (s3:ObjectCreated:Put) on a Kafka topic
// (domain.TopicStorageEvents); ParseEvent turns one of those into a
// domain.Event for app.CompleteStoredUpload. A pre-signed PUT cannot bound
// the size of the body: the size is checked when the notification arrives.
package s3

import "github.com/hyscribe/hyscribe/ports"

// The adapters must keep honouring their ports.
var (
	_ ports.BlobStore    = (*Store)(nil)
	_ ports.UploadSigner = (*Store)(nil)
)
