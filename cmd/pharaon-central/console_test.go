package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/store"
)

// selfSigned writes a certificate for 127.0.0.1 and its key.
func selfSigned(t *testing.T) (cert, key string) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "console"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	require.NoError(t, err)
	kb, err := x509.MarshalECPrivateKey(k)
	require.NoError(t, err)
	dir := t.TempDir()
	cert, key = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	require.NoError(t, os.WriteFile(cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600))
	require.NoError(t, os.WriteFile(key, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600))
	return cert, key
}

// pharaon-central operator add makes an account from the password on
// standard input; pharaon-central console serves it over HTTPS, with a
// session cookie for HTTPS only, and shows the fleet's kiosk.
func TestConsoleCommand(t *testing.T) {
	c := startCentre(t)
	ctx := context.Background()
	st, err := store.Open(filepath.Join(t.TempDir(), "pharaon.db"))
	require.NoError(t, err)
	defer st.Close()
	_, err = st.Adjust(ctx, 37*game.Euro+50, "", "test credit")
	require.NoError(t, err)
	publish(t, c, "borne-4", st)

	stdin = strings.NewReader("short\n")
	out, err := central(t, time.Now(), "operator", "add", "-fleet", c.dir, "-name", "Claire", "-role", "cashier")
	assert.ErrorIs(t, err, errFound, out)
	assert.Contains(t, out, "REFUSÉ / REFUSED\u00a0: password: 12 characters at least")
	stdin = strings.NewReader("un mot de passe assez long\n")
	out, err = central(t, time.Now(), "operator", "add", "-fleet", c.dir, "-name", "Claire", "-role", "chief")
	assert.ErrorIs(t, err, errUsage, out)
	out, err = central(t, time.Now(), "operator", "add", "-fleet", c.dir, "-name", "Claire", "-role", "cashier")
	require.NoError(t, err, out)
	assert.Contains(t, out, "COMPTE / ACCOUNT\u00a0: Claire, cashier")
	b, err := os.ReadFile(filepath.Join(c.dir, "console", "operators.json"))
	require.NoError(t, err)
	assert.NotContains(t, string(b), "mot de passe")

	_, err = c.cmd(t, time.Now(), "console", "-http", "0.0.0.0:0")
	assert.ErrorIs(t, err, errUsage, "in clear beyond the machine")

	cert, key := selfSigned(t)
	runCtx, cancel := context.WithCancel(ctx)
	var logs lockedBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(runCtx, []string{"console", "-fleet", c.dir, "-nats", c.url, "-http", "127.0.0.1:0", "-tls-cert", cert, "-tls-key", key},
			&logs, &logs, time.Now)
	}()
	defer func() {
		cancel()
		require.NoError(t, <-done, logs.String())
	}()
	addr := regexp.MustCompile(`console: (https://127\.0\.0\.1:\d+)`)
	require.Eventually(t, func() bool { return addr.MatchString(logs.String()) }, 30*time.Second, 10*time.Millisecond, logs.String())
	base := addr.FindStringSubmatch(logs.String())[1]

	pool := x509.NewCertPool()
	pem, err := os.ReadFile(cert)
	require.NoError(t, err)
	pool.AppendCertsFromPEM(pem)
	jar, _ := cookiejar.New(nil)
	cl := &http.Client{Jar: jar, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	resp, err := cl.PostForm(base+"/login", url.Values{"name": {"Claire"}, "password": {"un mot de passe assez long"}})
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	u, _ := url.Parse(base)
	require.Len(t, jar.Cookies(u), 1)
	// The cookie's attributes, as the server set them.
	resp, err = (&http.Client{Transport: cl.Transport, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}).PostForm(base+"/login", url.Values{"name": {"Claire"}, "password": {"un mot de passe assez long"}})
	require.NoError(t, err)
	resp.Body.Close()
	setCookie := resp.Header.Get("Set-Cookie")
	for _, attr := range []string{"HttpOnly", "Secure", "SameSite=Strict"} {
		assert.Contains(t, setCookie, attr)
	}
	require.Eventually(t, func() bool {
		resp, err := cl.Get(base + "/")
		require.NoError(t, err)
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return bytes.Contains(body, []byte(`data-kiosk="borne-4"`)) && bytes.Contains(body, []byte("37,50\u00a0€"))
	}, 30*time.Second, 50*time.Millisecond)
}
