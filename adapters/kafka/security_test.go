package kafka

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/adapters/kafka/kafkatest"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/internal/eventually"
)

// Every kind of client hyscribe makes — topic admin, producer, consumer
// group, lag monitor — produces and consumes through a cluster that demands
// mutual TLS and SASL, with each mechanism Security accepts.
func TestSecurityReachesATLSAndSASLCluster(t *testing.T) {
	for _, m := range []struct{ ours, kfake string }{
		{SASLPlain, "PLAIN"}, {SASLScramSHA256, "SCRAM-SHA-256"}, {SASLScramSHA512, "SCRAM-SHA-512"},
	} {
		t.Run(m.ours, func(t *testing.T) {
			c := kafkatest.StartSecure(t, m.kfake, "hyscribe", "a-long-kafka-password")
			opts, err := Security{TLS: c.ClientTLS, SASL: m.ours, User: c.User, Password: c.Password}.ClientOpts()
			if err != nil {
				t.Fatal(err)
			}
			const topic = "secure.events"
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			if err := EnsureTopics(ctx, c.Addrs, []string{topic}, TopicSettings{Partitions: 2, ClientOpts: opts}); err != nil {
				t.Fatal(err)
			}
			p, err := NewPublisher(c.Addrs, opts...)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			publish(t, p, testEvent(topic, "doc-1", 1), testEvent(topic, "doc-2", 2))

			var mu sync.Mutex
			got := map[string]bool{}
			startConsumer(t, ConsumerConfig{
				Brokers: c.Addrs, Topics: []string{topic}, ClientOpts: opts, Logger: testLogger(t),
				Handler: func(_ context.Context, ev domain.Event) error {
					mu.Lock()
					defer mu.Unlock()
					got[ev.ID] = true
					return nil
				},
			})
			eventually.True(t, 20*time.Second, "both events consumed", func() bool {
				mu.Lock()
				defer mu.Unlock()
				return len(got) == 2
			})

			m, err := NewLagMonitor(c.Addrs, map[string][]string{"hyscribe-test": {topic}}, testLogger(t), opts...)
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			if _, err := m.Check(ctx, time.Now()); err != nil {
				t.Fatalf("lag monitor: %v", err)
			}
		})
	}
}

// A wrong password or mechanism, a CA that did not sign the broker's
// certificate and a client without its certificate are each refused at once
// (not at the caller's deadline), and the password appears in no error.
// kfake closes the connection on bad credentials (EOF) where a real broker
// answers SASL_AUTHENTICATION_FAILED; the service's start-up error names
// the settings to check in both cases.
func TestSecurityRefusalsAreClear(t *testing.T) {
	const password = "the-right-password-123"
	c := kafkatest.StartSecure(t, "SCRAM-SHA-512", "hyscribe", password)
	otherCA := x509.NewCertPool()
	b, err := os.ReadFile(kafkatest.NewCA(t, t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	otherCA.AppendCertsFromPEM(b)
	wrongCA := c.ClientTLS.Clone()
	wrongCA.RootCAs = otherCA
	noCert := c.ClientTLS.Clone()
	noCert.Certificates = nil

	refused := func(error) bool { return true }
	for _, tc := range []struct {
		name string
		sec  Security
		want func(error) bool
	}{
		{"wrong password", Security{TLS: c.ClientTLS, SASL: SASLScramSHA512, User: "hyscribe", Password: "not-the-password-1"}, refused},
		{"wrong mechanism", Security{TLS: c.ClientTLS, SASL: SASLScramSHA256, User: "hyscribe", Password: password}, refused},
		{"untrusted broker", Security{TLS: wrongCA, SASL: SASLScramSHA512, User: "hyscribe", Password: password}, func(err error) bool {
			var unknown x509.UnknownAuthorityError
			return errors.As(err, &unknown)
		}},
		{"no client certificate", Security{TLS: noCert, SASL: SASLScramSHA512, User: "hyscribe", Password: password}, func(err error) bool {
			return strings.Contains(err.Error(), "certificate")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts, err := tc.sec.ClientOpts()
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			err = EnsureTopics(ctx, c.Addrs, []string{"refused"}, TopicSettings{ClientOpts: opts})
			switch {
			case err == nil:
				t.Fatal("EnsureTopics succeeded")
			case ctx.Err() != nil:
				t.Fatalf("EnsureTopics waited for its deadline instead of failing: %v", err)
			case !tc.want(err):
				t.Fatalf("EnsureTopics: %v: not the refusal expected", err)
			case strings.Contains(err.Error(), password) || strings.Contains(err.Error(), tc.sec.Password):
				t.Fatalf("the error holds the password: %v", err)
			}
		})
	}
}

func TestSecurityRefusesWhatCannotWork(t *testing.T) {
	for _, s := range []Security{
		{SASL: "gssapi", User: "u", Password: "pw-7f3a9c"},
		{SASL: SASLPlain, User: "u"},
		{SASL: SASLScramSHA256, Password: "pw-7f3a9c"},
	} {
		if _, err := s.ClientOpts(); err == nil {
			t.Errorf("%+v: accepted", s)
		} else if s.Password != "" && strings.Contains(err.Error(), s.Password) {
			t.Errorf("%+v: the error holds the password: %v", s, err)
		}
	}
	if opts, err := (Security{}).ClientOpts(); err != nil || len(opts) != 0 {
		t.Errorf("zero Security: %d options, %v; want none", len(opts), err)
	}
	if opts, err := (Security{TLS: &tls.Config{MinVersion: tls.VersionTLS12}}).ClientOpts(); err != nil || len(opts) != 1 {
		t.Errorf("TLS alone: %d options, %v; want one", len(opts), err)
	}
}
