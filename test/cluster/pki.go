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

// loadPKI reads the certificate authority newPKI made in dir.
func loadPKI(dir string) (*pki, error) {
	p := &pki{dir: dir}
	der, err := readPEM(p.path("ca.crt"))
	if err != nil {
		return nil, err
	}
	if p.cert, err = x509.ParseCertificate(der); err != nil {
		return nil, fmt.Errorf("reading %s: %w", p.path("ca.crt"), err)
	}
	if der, err = readPEM(p.path("ca.key")); err != nil {
		return nil, err
	}
	if p.key, err = x509.ParseECPrivateKey(der); err != nil {
		return nil, fmt.Errorf("reading %s: %w", p.path("ca.key"), err)
	}
	return p, nil
}

// readPEM returns the bytes of the first PEM block in file.
func readPEM(file string) ([]byte, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, fmt.Errorf("%s holds no PEM block", file)
	}
	return block.Bytes, nil
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

// ServingCertificate issues, from the cluster's CA, a serving certificate
// for the DNS names, for servers in the cluster that clients verify with
// that CA (OLM v1's catalog server and operator-controller). It returns the
// files of the certificate, its key and the CA.
func (c Config) ServingCertificate(name string, dns ...string) (cert, key, ca string, err error) {
	p, err := loadPKI(c.pki().dir)
	if err != nil {
		return "", "", "", fmt.Errorf("reading the cluster's CA (is the cluster up?): %w", err)
	}
	if err := p.issue(identity{name: name, cn: name, server: true, dns: dns}); err != nil {
		return "", "", "", err
	}
	return p.path(name + ".crt"), p.path(name + ".key"), p.path("ca.crt"), nil
}
