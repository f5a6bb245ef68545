package kafka

import (
	"crypto/tls"
	"fmt"
	"strings"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// SASL mechanisms Security accepts, as operators write them.
const (
	SASLPlain       = "plain"
	SASLScramSHA256 = "scram-sha-256"
	SASLScramSHA512 = "scram-sha-512"
)

// SASLMechanisms is every mechanism Security accepts.
var SASLMechanisms = []string{SASLPlain, SASLScramSHA256, SASLScramSHA512}

// Security is how every client hyscribe makes (producer, consumers, topic
// admin, lag monitor) reaches a production cluster: TLS, SASL, or both
// (SASL_SSL). The zero value is plaintext without authentication, what the
// embedded cluster speaks.
type Security struct {
	// TLS, when set, encrypts every connection; its RootCAs verify the
	// brokers (nil: the system's roots) and its Certificates are the
	// client's own for brokers that ask for one (mutual TLS).
	TLS *tls.Config
	// SASL is one of SASLMechanisms, or empty for none.
	SASL     string
	User     string
	Password string
}

// ClientOpts are the franz-go options that make a client speak as s says;
// none for the zero value.
func (s Security) ClientOpts() ([]kgo.Opt, error) {
	var opts []kgo.Opt
	if s.TLS != nil {
		// franz-go sets each broker's ServerName on a clone of this config.
		opts = append(opts, kgo.DialTLSConfig(s.TLS))
	}
	if s.SASL == "" {
		return opts, nil
	}
	if s.User == "" || s.Password == "" {
		return nil, fmt.Errorf("kafka.Security: SASL %s needs a user name and a password", s.SASL)
	}
	var m sasl.Mechanism
	switch strings.ToLower(s.SASL) {
	case SASLPlain:
		m = plain.Auth{User: s.User, Pass: s.Password}.AsMechanism()
	case SASLScramSHA256:
		m = scram.Auth{User: s.User, Pass: s.Password}.AsSha256Mechanism()
	case SASLScramSHA512:
		m = scram.Auth{User: s.User, Pass: s.Password}.AsSha512Mechanism()
	default:
		return nil, fmt.Errorf("kafka.Security: SASL mechanism %q: want one of %s", s.SASL, strings.Join(SASLMechanisms, ", "))
	}
	return append(opts, kgo.SASL(m)), nil
}
