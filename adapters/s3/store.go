package s3

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
	"github.com/minio/minio-go/v7/pkg/notification"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/internal/retry"
	"github.com/hyscribe/hyscribe/ports"
)

// DefaultRegion is the region assumed when none is configured (MinIO's).
const DefaultRegion = "us-east-1"

// MaxPresignExpiry is the longest validity Signature V4 allows.
const MaxPresignExpiry = 7 * 24 * time.Hour

// Config says how to reach the bucket.
type Config struct {
	Endpoint  string // host:port of the S3 API, as the service reaches it
	Bucket    string
	AccessKey string
	SecretKey string
	Region    string // default DefaultRegion
	Secure    bool   // HTTPS
	// PublicEndpoint is host:port of the S3 API as clients reach it, when
	// it differs from Endpoint (a container network name inside, a public
	// host outside): the host is part of what a pre-signed URL signs.
	// Default Endpoint.
	PublicEndpoint string
	// PublicSecure says whether pre-signed URLs are https, apart from
	// Secure (plain HTTP to a store inside the cluster, TLS at the ingress
	// customers reach); nil: as Secure.
	PublicSecure *bool
	// Now is the clock of pre-signed URLs' validity; default time.Now.
	Now func() time.Time
	// TargetWait bounds how long EnableUploadNotifications waits for the
	// store to register the notification target it names; default
	// DefaultTargetWait, negative: no wait.
	TargetWait time.Duration
	// Logger says each time EnableUploadNotifications waits; default
	// slog.Default().
	Logger *slog.Logger
}

// DefaultTargetWait is how long EnableUploadNotifications waits by default
// for the store to register its notification target. MinIO answers
// /minio/health/ready before it has registered its notification targets
// (tens of milliseconds later on a quiet machine, seconds under load), so a
// service started with MinIO, as compose, Kubernetes and the tests do, may
// meet the target missing at first.
const DefaultTargetWait = 60 * time.Second

// Store is a bucket of an S3-compatible store: a ports.BlobStore, and a
// ports.UploadSigner whose addresses are pre-signed PUTs to key
// AudioKey(docId).
type Store struct {
	cfg    Config
	client *minio.Client // requests from the service
	public *minio.Client // signs URLs for clients; never sends a request
}

// New builds the adapter. It does not connect: see EnsureBucket.
func New(cfg Config) (*Store, error) {
	if cfg.Endpoint == "" || cfg.Bucket == "" || cfg.AccessKey == "" || cfg.SecretKey == "" {
		return nil, errors.New("s3.New: endpoint, bucket, access key and secret key are required")
	}
	if cfg.Region == "" {
		cfg.Region = DefaultRegion
	}
	if cfg.PublicEndpoint == "" {
		cfg.PublicEndpoint = cfg.Endpoint
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.TargetWait == 0 {
		cfg.TargetWait = DefaultTargetWait
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	newClient := func(endpoint string, secure bool) (*minio.Client, error) {
		// Path-style addressing works with every S3-compatible store and
		// needs no wildcard DNS; a fixed region means signing never asks
		// the store for the bucket's location.
		c, err := minio.New(endpoint, &minio.Options{
			Creds:        credentials.NewStaticV4(cfg.AccessKey, cfg.SecretKey, ""),
			Secure:       secure,
			Region:       cfg.Region,
			BucketLookup: minio.BucketLookupPath,
		})
		if err != nil {
			return nil, fmt.Errorf("s3.New %s: %w", endpoint, err)
		}
		return c, nil
	}
	client, err := newClient(cfg.Endpoint, cfg.Secure)
	if err != nil {
		return nil, err
	}
	publicSecure := cfg.Secure
	if cfg.PublicSecure != nil {
		publicSecure = *cfg.PublicSecure
	}
	public, err := newClient(cfg.PublicEndpoint, publicSecure)
	if err != nil {
		return nil, err
	}
	return &Store{cfg: cfg, client: client, public: public}, nil
}

// Bucket is the bucket's name.
func (s *Store) Bucket() string { return s.cfg.Bucket }

// EnsureBucket creates the bucket unless it exists.
func (s *Store) EnsureBucket(ctx context.Context) error {
	ok, err := s.client.BucketExists(ctx, s.cfg.Bucket)
	if err != nil {
		return fmt.Errorf("s3.EnsureBucket %s: %w", s.cfg.Bucket, err)
	}
	if ok {
		return nil
	}
	err = s.client.MakeBucket(ctx, s.cfg.Bucket, minio.MakeBucketOptions{Region: s.cfg.Region})
	if err != nil && minio.ToErrorResponse(err).Code != "BucketAlreadyOwnedByYou" {
		return fmt.Errorf("s3.EnsureBucket %s: %w", s.cfg.Bucket, err)
	}
	return nil
}

// EnableUploadNotifications makes the bucket announce every object PUT under
// AudioPrefix to the notification target arn ("arn:minio:sqs::HYSCRIBE:kafka"
// for the Kafka target MinIO starts with MINIO_NOTIFY_KAFKA_ENABLE_HYSCRIBE=on:
// the ID keeps its case). It replaces the bucket's notification
// configuration, so running it again changes nothing.
//
// While the store says the target does not exist, it retries (the waits of
// retry.Policy, a warning logged before each) for up to Config.TargetWait:
// a store just started registers its targets after it says it is ready.
// Every other error ends it at once.
func (s *Store) EnableUploadNotifications(ctx context.Context, arn string) error {
	a, err := notification.NewArnFromString(arn)
	if err != nil {
		return fmt.Errorf("s3.EnableUploadNotifications: ARN %q: %w", arn, err)
	}
	q := notification.NewConfig(a)
	q.AddEvents(notification.ObjectCreatedPut)
	q.AddFilterPrefix(AudioPrefix)
	var nc notification.Configuration
	nc.AddQueue(q)
	start := time.Now()
	waits := retry.Policy(250*time.Millisecond, 5*time.Second)
	for {
		err := s.client.SetBucketNotification(ctx, s.cfg.Bucket, nc)
		if err == nil {
			return nil
		}
		waited := time.Since(start)
		wait := waits.NextBackOff()
		if !IsUnknownTarget(err) || waited+wait > s.cfg.TargetWait {
			if IsUnknownTarget(err) && s.cfg.TargetWait > 0 {
				return fmt.Errorf("s3.EnableUploadNotifications %s → %s: the store had not registered the target after %s: %w", s.cfg.Bucket, arn, waited.Round(time.Second), err)
			}
			return fmt.Errorf("s3.EnableUploadNotifications %s → %s: %w", s.cfg.Bucket, arn, err)
		}
		s.cfg.Logger.Warn("s3: the store has not registered the notification target yet (MinIO does so shortly after it says it is ready); retrying",
			"bucket", s.cfg.Bucket, "arn", arn, "in", wait.Round(time.Millisecond).String(), "waited", waited.Round(time.Millisecond).String(), "within", s.cfg.TargetWait.String())
		select {
		case <-ctx.Done():
			return fmt.Errorf("s3.EnableUploadNotifications %s → %s: %w (waiting for the target: %w)", s.cfg.Bucket, arn, ctx.Err(), err)
		case <-time.After(wait):
		}
	}
}

// IsUnknownTarget reports whether err is the store's refusal of a
// notification naming a target it has not registered (MinIO:
// "A specified destination ARN does not exist or is not well-formed").
func IsUnknownTarget(err error) bool {
	var r minio.ErrorResponse
	return errors.As(err, &r) && r.Code == "InvalidArgument" && strings.Contains(r.Message, "destination ARN")
}

// AudioPrefix is where uploads go: AudioKey(id) = "audio/<docId>.mp3".
const AudioPrefix = "audio/"

// AudioKey is the object key of a job's upload.
func AudioKey(id domain.DocID) string { return AudioPrefix + string(id) + ".mp3" }

// DocIDFromKey is AudioKey's inverse; false for a key of another shape.
func DocIDFromKey(key string) (domain.DocID, bool) {
	id, ok := strings.CutPrefix(key, AudioPrefix)
	if !ok {
		return "", false
	}
	id, ok = strings.CutSuffix(id, ".mp3")
	if !ok || id == "" || len(id) > 128 {
		return "", false
	}
	for _, c := range id { // docIds are URL-safe base64
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return "", false
		}
	}
	return domain.DocID(id), true
}

// SignUpload returns a pre-signed PUT URL for AudioKey(id) valid until
// expires (Signature V4 counts whole seconds, at least one, at most seven
// days). Signing is local: nothing is sent to the store.
func (s *Store) SignUpload(ctx context.Context, id domain.DocID, expires time.Time) (string, error) {
	ttl := expires.Sub(s.cfg.Now()).Round(time.Second)
	ttl = min(max(ttl, time.Second), MaxPresignExpiry)
	u, err := s.public.PresignedPutObject(ctx, s.cfg.Bucket, AudioKey(id), ttl)
	if err != nil {
		return "", fmt.Errorf("s3.SignUpload %s: %w", id, err)
	}
	return u.String(), nil
}

// VerifyUpload refuses every signature: uploads go to the object store,
// which checks its own signatures, so an upload address of the service
// itself is never valid when this store is in use.
func (s *Store) VerifyUpload(domain.DocID, time.Time, string, time.Time) error {
	return fmt.Errorf("uploads go straight to the object store; this address is not an upload address: %w", domain.ErrForbidden)
}

// Put streams r into key, refusing more than maxBytes (maxBytes <= 0: no
// limit) with domain.ErrTooLarge. The object appears only once the whole
// body is stored.
func (s *Store) Put(ctx context.Context, key string, r io.Reader, maxBytes int64) (int64, error) {
	lr := &limitReader{r: r, max: maxBytes}
	// The length is unknown, so minio-go streams in parts; a fixed part size
	// bounds the buffer it holds (its default for an unknown length is the
	// largest part S3 allows).
	info, err := s.client.PutObject(ctx, s.cfg.Bucket, key, lr, -1, minio.PutObjectOptions{ContentType: "audio/mpeg", PartSize: putPartSize})
	if lr.over {
		// The body was cut short, so the store kept nothing; make sure.
		_ = s.Delete(context.WithoutCancel(ctx), key)
		return 0, fmt.Errorf("s3.Put %s: more than %d bytes: %w", key, maxBytes, domain.ErrTooLarge)
	}
	if err != nil {
		return 0, fmt.Errorf("s3.Put %s: %w", key, err)
	}
	return info.Size, nil
}

// putPartSize is the part size of Put's streaming upload.
const putPartSize = 16 << 20

// Open reads key with its size; domain.ErrNotFound if absent, in an error
// naming the object looked for.
func (s *Store) Open(ctx context.Context, key string) (ports.Blob, error) {
	// GetObject sends nothing until the first read; Stat sends the GET and
	// makes a missing key an error here rather than on the reader's first
	// Read. Its size is that of the object the reader streams.
	obj, err := s.client.GetObject(ctx, s.cfg.Bucket, key, minio.GetObjectOptions{})
	var info minio.ObjectInfo
	if err == nil {
		info, err = obj.Stat()
	}
	if err != nil {
		if obj != nil {
			_ = obj.Close()
		}
		if isNotFound(err) {
			return nil, fmt.Errorf("s3.Open %s: no object s3://%s/%s at %s: %w", key, s.cfg.Bucket, key, s.cfg.Endpoint, domain.ErrNotFound)
		}
		return nil, fmt.Errorf("s3.Open %s: %w", key, err)
	}
	return object{Object: obj, size: info.Size}, nil
}

// object is an opened blob: the object's reader and its size.
type object struct {
	*minio.Object
	size int64
}

func (o object) Size() int64 { return o.size }

// Delete removes key; deleting an absent key succeeds (S3 semantics).
func (s *Store) Delete(ctx context.Context, key string) error {
	if err := s.client.RemoveObject(ctx, s.cfg.Bucket, key, minio.RemoveObjectOptions{}); err != nil && !isNotFound(err) {
		return fmt.Errorf("s3.Delete %s: %w", key, err)
	}
	return nil
}

func isNotFound(err error) bool {
	r := minio.ToErrorResponse(err)
	return r.Code == "NoSuchKey" || r.StatusCode == http.StatusNotFound
}

// limitReader fails the read that would pass max bytes, so an upload over
// the limit is aborted instead of stored.
type limitReader struct {
	r    io.Reader
	max  int64
	n    int64
	over bool
}

func (l *limitReader) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	l.n += int64(n)
	if l.max > 0 && l.n > l.max {
		l.over = true
		return 0, domain.ErrTooLarge
	}
	return n, err
}
