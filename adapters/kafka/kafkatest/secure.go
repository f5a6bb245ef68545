// Package kafkatest starts Kafka clusters for tests that need more than
// the embedded one: a kfake cluster over TCP that demands TLS (mutual, with
// certificates made for the test) and SASL, as a production cluster does.
// Test code only: nothing else imports it.
package kafkatest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
)

// Certs are a CA, a broker certificate and a client certificate it signed,
// for 127.0.0.1 and localhost, the client's written as PEM files.
type Certs struct {
	// PEM files in the test's temporary directory: the CA, the client's
	// certificate and its key.
	CAFile, CertFile, KeyFile string
	// ClientTLS trusts the CA and presents the client certificate.
	ClientTLS *tls.Config
	// ServerTLS presents the broker's certificate and requires a client
	// certificate of the CA.
	ServerTLS *tls.Config
}

// NewCerts makes and writes them.
func NewCerts(t testing.TB) *Certs {
	t.Helper()
	dir := t.TempDir()
	ca, caKey := newCert(t, nil, nil, "hyscribe test CA")
	server, serverKey := newCert(t, ca, caKey, "broker")
	client, clientKey := newCert(t, ca, caKey, "hyscribe")
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	return &Certs{
		CAFile:   writePEM(t, dir, "ca.pem", "CERTIFICATE", ca.Raw),
		CertFile: writePEM(t, dir, "client.pem", "CERTIFICATE", client.Raw),
		KeyFile:  writePEM(t, dir, "client-key.pem", "EC PRIVATE KEY", marshalKey(t, clientKey)),
		ClientTLS: &tls.Config{
			RootCAs:      pool,
			Certificates: []tls.Certificate{{Certificate: [][]byte{client.Raw}, PrivateKey: clientKey, Leaf: client}},
			MinVersion:   tls.VersionTLS12,
		},
		ServerTLS: &tls.Config{
			Certificates: []tls.Certificate{{Certificate: [][]byte{server.Raw}, PrivateKey: serverKey, Leaf: server}},
			ClientAuth:   tls.RequireAndVerifyClientCert,
			ClientCAs:    pool,
			MinVersion:   tls.VersionTLS12,
		},
	}
}

// Secure is a running cluster that accepts only TLS connections whose
// client presents a certificate of its CA, then only the SASL user it was
// started with.
type Secure struct {
	*Certs
	Addrs []string
	// Mechanism is the kfake spelling: PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512.
	Mechanism, User, Password string
}

// StartSecure starts a one-broker cluster on a free port, closed when t ends.
func StartSecure(t testing.TB, mechanism, user, password string) *Secure {
	t.Helper()
	s := &Secure{Certs: NewCerts(t), Mechanism: mechanism, User: user, Password: password}
	c, err := kfake.NewCluster(
		kfake.NumBrokers(1),
		kfake.EnableSASL(),
		kfake.Superuser(mechanism, user, password),
		kfake.TLS(s.ServerTLS),
		kfake.AllowAutoTopicCreation(),
		kfake.GroupMinSessionTimeout(100*time.Millisecond),
	)
	if err != nil {
		t.Fatalf("kafkatest.StartSecure: %v", err)
	}
	t.Cleanup(c.Close)
	s.Addrs = c.ListenAddrs()
	return s
}

// NewCA writes another CA's certificate to a file in dir: one the cluster's
// certificates are not signed by.
func NewCA(t testing.TB, dir string) string {
	t.Helper()
	ca, _ := newCert(t, nil, nil, "some other CA")
	return writePEM(t, dir, "other-ca.pem", "CERTIFICATE", ca.Raw)
}

// newCert makes a certificate for 127.0.0.1 and localhost signed by parent,
// or a self-signed CA when parent is nil.
func newCert(t testing.TB, parent *x509.Certificate, parentKey *ecdsa.PrivateKey, name string) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial, _ := rand.Int(rand.Reader, big.NewInt(1<<62))
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: name},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames:     []string{"localhost"},
	}
	signer, signerKey := tmpl, key
	if parent == nil {
		tmpl.IsCA, tmpl.BasicConstraintsValid = true, true
		tmpl.KeyUsage |= x509.KeyUsageCertSign
	} else {
		signer, signerKey = parent, parentKey
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, signer, &key.PublicKey, signerKey)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return cert, key
}

func marshalKey(t testing.TB, k *ecdsa.PrivateKey) []byte {
	t.Helper()
	b, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writePEM(t testing.TB, dir, name, typ string, der []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
