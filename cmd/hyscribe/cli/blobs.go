package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/hyscribe/hyscribe/adapters/blob"
	"github.com/hyscribe/hyscribe/adapters/s3"
	"github.com/hyscribe/hyscribe/ports"
)

// openBlobs opens where uploads are kept and how their addresses are signed:
// an S3-compatible bucket with pre-signed PUTs (the bucket and its upload
// notifications are set up if missing), or the local disk with addresses
// served by the API itself.
func (s *Service) openBlobs(ctx context.Context) (ports.BlobStore, ports.UploadSigner, error) {
	cfg := s.cfg
	if cfg.S3() {
		publicHTTPS := cfg.S3PublicHTTPS()
		st, err := s3.New(s3.Config{
			Endpoint: cfg.S3Endpoint, Bucket: cfg.S3Bucket, AccessKey: cfg.S3AccessKey, SecretKey: cfg.S3SecretKey,
			Region: cfg.S3Region, Secure: cfg.S3Secure, PublicEndpoint: cfg.S3PublicEndpoint, PublicSecure: &publicHTTPS,
			TargetWait: cfg.S3NotifyWait, Logger: s.log,
		})
		if err != nil {
			return nil, nil, fmt.Errorf("HYSCRIBE_S3_ENDPOINT: %w", err)
		}
		if err := st.EnsureBucket(ctx); err != nil {
			return nil, nil, fmt.Errorf("HYSCRIBE_S3_ENDPOINT: %w", err)
		}
		if cfg.S3NotifyARN != "off" {
			if err := st.EnableUploadNotifications(ctx, cfg.S3NotifyARN); err != nil {
				return nil, nil, fmt.Errorf("HYSCRIBE_S3_NOTIFY_ARN (is the store's Kafka notification target configured? HYSCRIBE_S3_NOTIFY_WAIT bounds the wait for it): %w", err)
			}
		}
		s.log.Info("uploads go to S3", "endpoint", cfg.S3Endpoint, "bucket", cfg.S3Bucket, "notifications", cfg.S3NotifyARN)
		return st, st, nil
	}
	secret, err := uploadSecret(cfg)
	if err != nil {
		return nil, nil, err
	}
	disk, err := blob.NewDisk(filepath.Join(cfg.DataDir, "blobs"))
	if err != nil {
		return nil, nil, err
	}
	if cfg.DatabaseURL != "" {
		// A shared store means several processes, likely on several
		// machines; uploads on one machine's disk reach only the processes
		// that share it.
		dir, _ := filepath.Abs(disk.Dir())
		s.log.Warn("DATABASE_URL is set but uploads are kept on local disk: "+blob.MissingHint+
			"; otherwise every job uploaded through an API whose disk a worker does not share fails with \"the uploaded audio is missing from storage\"",
			"dir", dir)
	}
	// Partial uploads a crash left; the sweeper removes later ones.
	if n, err := disk.RemoveLeftovers(ctx, time.Now().Add(-blob.LeftoverAge)); err != nil {
		s.log.Warn("remove partial uploads left by a crash", "err", err)
	} else if n > 0 {
		s.log.Info("removed partial uploads left by a crash", "files", n)
	}
	return disk, blob.NewSigner(s.publicURL, secret), nil
}

func uploadSecret(cfg Config) ([]byte, error) {
	if cfg.UploadSecret != "" {
		return []byte(cfg.UploadSecret), nil
	}
	return blob.LoadOrCreateSecret(filepath.Join(cfg.DataDir, "upload-signing.key"))
}
