package cluster

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// identity is who a certificate names: a component, a user of the cluster,
// or a server and the names it answers to.
type identity struct {
	name   string // file name of the key and certificate
	cn     string
	groups []string
	server bool
	ips    []net.IP
	dns    []string
}

// pki is the cluster's certificate authority, in a folder of PEM files.
type pki struct {
	dir  string
	cert *x509.Certificate
	key  crypto.Signer
}

// newPKI makes a certificate authority in dir.
func newPKI(dir string) (*pki, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	template := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: "seed-operator local cluster CA"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().AddDate(1, 0, 0),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, template, template, key.Public(), key)
	if err != nil {
		return nil, fmt.Errorf("making the CA: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	p := &pki{dir: dir, cert: cert, key: key}
	return p, p.write("ca", der, key)
}

// issue writes id's key and a certificate for it, signed by the CA.
func (p *pki) issue(id identity) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	template := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: id.cn, Organization: id.groups},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().AddDate(1, 0, 0),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
		IPAddresses:  id.ips,
		DNSNames:     id.dns,
	}
	if id.server {
		template.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
	}
	der, err := x509.CreateCertificate(rand.Reader, template, p.cert, key.Public(), p.key)
	if err != nil {
		return fmt.Errorf("issuing the certificate of %s: %w", id.name, err)
	}
	return p.write(id.name, der, key)
}

// serviceAccountKey writes the key pair that signs and verifies service
// account tokens.
func (p *pki) serviceAccountKey() error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	public, err := x509.MarshalPKIXPublicKey(key.Public())
	if err != nil {
		return err
	}
	if err := writePEM(p.path("sa.pub"), "PUBLIC KEY", public); err != nil {
		return err
	}
	return writeKey(p.path("sa.key"), key)
}

func (p *pki) write(name string, der []byte, key *ecdsa.PrivateKey) error {
	if err := writePEM(p.path(name+".crt"), "CERTIFICATE", der); err != nil {
		return err
	}
	return writeKey(p.path(name+".key"), key)
}

func (p *pki) path(file string) string { return filepath.Join(p.dir, file) }

func writeKey(file string, key *ecdsa.PrivateKey) error {
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return err
	}
	return writePEM(file, "EC PRIVATE KEY", der)
}

func writePEM(file, blockType string, der []byte) error {
	return os.WriteFile(file, pem.EncodeToMemory(&pem.Block{Type: blockType, Bytes: der}), 0o600)
}

func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 126))
	if err != nil {
		panic(fmt.Sprintf("reading random numbers: %v", err))
	}
	return n
}
