package authority

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// TLSInput says where the server's TLS comes from. With CAFile, CertFile
// and KeyFile the operator's own are copied in (a company CA); without,
// the centre makes a CA of its own and a server certificate for Hosts
// (names and addresses the kiosks reach the server by; default
// localhost and 127.0.0.1).
type TLSInput struct {
	Hosts                     []string
	CAFile, CertFile, KeyFile string
}

// CAFile is the certificate authority the kiosks verify the server with:
// it goes to every kiosk (nats-ca).
func (m *Material) CAFile() string { return filepath.Join(m.Dir, "tls", "ca.pem") }

func (m *Material) caKeyFile() string { return filepath.Join(m.Dir, "tls", "ca-key.pem") }

// ServerCertFile and ServerKeyFile are the server's certificate and key.
func (m *Material) ServerCertFile() string { return filepath.Join(m.Dir, "tls", "server.pem") }
func (m *Material) ServerKeyFile() string  { return filepath.Join(m.Dir, "tls", "server-key.pem") }

// Validity of what the centre makes: the CA ten years, the server's
// certificate two (RenewServerCert makes it again).
const (
	caValidity     = 10 * 365 * 24 * time.Hour
	serverValidity = 2 * 365 * 24 * time.Hour
)

func (m *Material) initTLS(in TLSInput) error {
	if _, err := os.Stat(m.ServerCertFile()); err == nil {
		return nil // made or given before: kept
	}
	if in.CAFile != "" || in.CertFile != "" || in.KeyFile != "" {
		return m.takeTLS(in)
	}
	hosts := in.Hosts
	if len(hosts) == 0 {
		hosts = []string{"localhost", "127.0.0.1"}
	}
	caKey, caCert, err := m.loadOrMakeCA()
	if err != nil {
		return err
	}
	return m.makeServerCert(caKey, caCert, hosts)
}

// takeTLS copies the operator's CA, certificate and key, after checking
// that the certificate is the key's and that the CA signed it.
func (m *Material) takeTLS(in TLSInput) error {
	if in.CAFile == "" || in.CertFile == "" || in.KeyFile == "" {
		return errors.New("tls: the CA, the certificate and its key, all three or none")
	}
	pair, err := tls.LoadX509KeyPair(in.CertFile, in.KeyFile)
	if err != nil {
		return fmt.Errorf("tls: %w", err)
	}
	caPEM, err := os.ReadFile(in.CAFile)
	if err != nil {
		return fmt.Errorf("tls: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return fmt.Errorf("tls: %s holds no certificate", in.CAFile)
	}
	leaf, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		return fmt.Errorf("tls: %w", err)
	}
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: pool, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}); err != nil {
		return fmt.Errorf("tls: %s is not signed by %s: %w", in.CertFile, in.CAFile, err)
	}
	cert, err := os.ReadFile(in.CertFile)
	if err != nil {
		return err
	}
	key, err := os.ReadFile(in.KeyFile)
	if err != nil {
		return err
	}
	if err := WriteFile(m.CAFile(), caPEM, 0o644); err != nil {
		return err
	}
	if err := WriteFile(m.ServerKeyFile(), key, 0o600); err != nil {
		return err
	}
	return WriteFile(m.ServerCertFile(), cert, 0o644)
}

func (m *Material) loadOrMakeCA() (*ecdsa.PrivateKey, *x509.Certificate, error) {
	if _, err := os.Stat(m.CAFile()); err == nil {
		return loadCA(m.CAFile(), m.caKeyFile())
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial(), Subject: pkix.Name{CommonName: "Pharaon fleet CA", Organization: []string{OperatorName}},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(caValidity),
		IsCA: true, BasicConstraintsValid: true, MaxPathLenZero: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	if err := writeNew(m.caKeyFile(), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		return nil, nil, err
	}
	if err := WriteFile(m.CAFile(), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		return nil, nil, err
	}
	cert, err := x509.ParseCertificate(der)
	return key, cert, err
}

func loadCA(certFile, keyFile string) (*ecdsa.PrivateKey, *x509.Certificate, error) {
	pair, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, nil, fmt.Errorf("tls: the CA: %w", err)
	}
	key, ok := pair.PrivateKey.(*ecdsa.PrivateKey)
	if !ok {
		return nil, nil, errors.New("tls: the CA's key is not ECDSA")
	}
	cert, err := x509.ParseCertificate(pair.Certificate[0])
	return key, cert, err
}

// RenewServerCert makes the server's certificate again with the centre's
// CA, for hosts: the kiosks keep their CA file.
func (m *Material) RenewServerCert(hosts []string) error {
	caKey, caCert, err := loadCA(m.CAFile(), m.caKeyFile())
	if err != nil {
		return err
	}
	return m.makeServerCert(caKey, caCert, hosts)
}

func (m *Material) makeServerCert(caKey *ecdsa.PrivateKey, ca *x509.Certificate, hosts []string) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial(), Subject: pkix.Name{CommonName: hosts[0], Organization: []string{OperatorName}},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(serverValidity),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return err
	}
	if err := WriteFile(m.ServerKeyFile(), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		return err
	}
	return WriteFile(m.ServerCertFile(), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644)
}

func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		panic(err) // crypto/rand does not fail
	}
	return n
}
