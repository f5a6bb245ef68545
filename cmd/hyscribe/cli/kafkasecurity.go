package cli

import (
	"cmp"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/hyscribe/hyscribe/adapters/kafka"
)

// checkKafkaSecurity holds the rules between the KAFKA_TLS* and KAFKA_SASL_*
// variables; the files themselves are read at start (kafkaClientOpts).
func (c Config) checkKafkaSecurity() error {
	mech := strings.ToLower(c.KafkaSASLMech)
	switch {
	case mech != "" && !slices.Contains(kafka.SASLMechanisms, mech):
		return fmt.Errorf("KAFKA_SASL_MECHANISM must be one of %s, not %q", strings.Join(kafka.SASLMechanisms, ", "), c.KafkaSASLMech)
	case mech != "" && (c.KafkaSASLUser == "" || c.KafkaSASLPassword == ""):
		return errors.New("KAFKA_SASL_MECHANISM is set: KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD are required too")
	case mech == "" && (c.KafkaSASLUser != "" || c.KafkaSASLPassword != ""):
		return errors.New("KAFKA_SASL_USERNAME or KAFKA_SASL_PASSWORD is set without KAFKA_SASL_MECHANISM: set it to plain, scram-sha-256 or scram-sha-512 (what the brokers' SASL listener enables)")
	case (c.KafkaTLSCertFile == "") != (c.KafkaTLSKeyFile == ""):
		return errors.New("KAFKA_TLS_CERT_FILE and KAFKA_TLS_KEY_FILE go together: a client certificate needs its key, and a key its certificate")
	case !c.KafkaTLS && (c.KafkaTLSCAFile != "" || c.KafkaTLSCertFile != ""):
		return errors.New("KAFKA_TLS_CA_FILE or KAFKA_TLS_CERT_FILE is set but KAFKA_TLS is not true: set KAFKA_TLS=true for TLS to the brokers, or unset the files")
	case len(c.KafkaBrokers) == 0 && (c.KafkaTLS || mech != ""):
		return errors.New("KAFKA_TLS and KAFKA_SASL_MECHANISM apply to KAFKA_BROKERS, which is empty: the embedded cluster speaks neither; set KAFKA_BROKERS or unset them")
	}
	return nil
}

// kafkaSecurity reads the files the KAFKA_TLS* variables name; an error
// names the variable.
func (c Config) kafkaSecurity() (kafka.Security, error) {
	sec := kafka.Security{SASL: strings.ToLower(c.KafkaSASLMech), User: c.KafkaSASLUser, Password: c.KafkaSASLPassword}
	if !c.KafkaTLS {
		return sec, nil
	}
	sec.TLS = &tls.Config{MinVersion: tls.VersionTLS12}
	if c.KafkaTLSCAFile != "" {
		b, err := os.ReadFile(c.KafkaTLSCAFile)
		if err != nil {
			return sec, fmt.Errorf("KAFKA_TLS_CA_FILE: %w", err)
		}
		sec.TLS.RootCAs = x509.NewCertPool()
		if !sec.TLS.RootCAs.AppendCertsFromPEM(b) {
			return sec, fmt.Errorf("KAFKA_TLS_CA_FILE %s holds no PEM certificate", c.KafkaTLSCAFile)
		}
	}
	if c.KafkaTLSCertFile != "" {
		cert, err := tls.LoadX509KeyPair(c.KafkaTLSCertFile, c.KafkaTLSKeyFile)
		if err != nil {
			return sec, fmt.Errorf("KAFKA_TLS_CERT_FILE %s with KAFKA_TLS_KEY_FILE %s: %w", c.KafkaTLSCertFile, c.KafkaTLSKeyFile, err)
		}
		sec.TLS.Certificates = []tls.Certificate{cert}
	}
	return sec, nil
}

// kafkaClientOpts are the options every Kafka client of the service is
// made with.
func (c Config) kafkaClientOpts() ([]kgo.Opt, error) {
	sec, err := c.kafkaSecurity()
	if err != nil {
		return nil, err
	}
	return sec.ClientOpts()
}

// kafkaSecurityHint is what a refused connection to the brokers is told to
// check: the security settings in use, never the password. Empty when there
// are none. A broker answers bad credentials with SASL_AUTHENTICATION_FAILED
// or by closing the connection (EOF), an untrusted certificate with an
// x509 error.
func (c Config) kafkaSecurityHint() string {
	var parts []string
	if c.KafkaTLS {
		tlsDesc := "TLS verified by " + cmp.Or(c.KafkaTLSCAFile, "the system's roots") + " (KAFKA_TLS_CA_FILE)"
		if c.KafkaTLSCertFile != "" {
			tlsDesc += " with the client certificate " + c.KafkaTLSCertFile + " (KAFKA_TLS_CERT_FILE)"
		}
		parts = append(parts, tlsDesc)
	}
	if c.KafkaSASLMech != "" {
		parts = append(parts, fmt.Sprintf("SASL %s as %q (KAFKA_SASL_MECHANISM, KAFKA_SASL_USERNAME, KAFKA_SASL_PASSWORD)", strings.ToLower(c.KafkaSASLMech), c.KafkaSASLUser))
	}
	if len(parts) == 0 {
		return ""
	}
	return "; hyscribe connects with " + strings.Join(parts, " and ") + ": a broker that closes the connection (EOF) or answers SASL_AUTHENTICATION_FAILED refused these credentials, an x509 error means the CA does not match the brokers' certificates"
}
