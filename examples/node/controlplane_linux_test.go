package main

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/podlife/podlife/examples/node/internal/kubeletauth"
)

// controlPlane is a real Kubernetes control plane on 127.0.0.1: etcd (Debian's etcd-server),
// kube-apiserver, kube-scheduler and kube-controller-manager (built from the Go module proxy
// by hack/build-control-plane.sh), each on ports free when the run started.
type controlPlane struct {
	dir        string
	bin        string
	server     string // https://127.0.0.1:PORT
	token      string
	kubeconfig string
	// ca is the cluster's CA, as kubeadm's: it signs the API server's kubelet client
	// certificate and the client certificates the API server authenticates (--client-ca-file),
	// nodes' and users' alike. Nodes trust it for their kubelet API (--client-ca).
	ca       *kubeletauth.Certificate
	clientCA string // its certificate's file
	// kubeletClient is the API server's client certificate for the kubelet API (cert, key).
	kubeletClient [2]string
	// userTokens are bearer tokens of the token file by user: "viewer" (no rights) and
	// "kubelet-api-user" (bound to system:kubelet-api-admin).
	userTokens map[string]string
	// frontProxyCA is the aggregation layer's request-header CA (--requestheader-client-ca-file):
	// it signs the API server's proxy client certificate, by which aggregated API servers
	// (metrics-server) trust the user the API server names in its X-Remote-* headers.
	frontProxyCA string
	etcdData     string
	procs        []*process
}

// process is a control plane component, its output in a file.
type process struct {
	name string
	cmd  *exec.Cmd
	log  string
	done chan struct{}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// startControlPlane starts the control plane in dir with the binaries of bin, the API server
// with apiserverArgs added. Close stops it.
func startControlPlane(ctx context.Context, dir, bin, etcd string, apiserverArgs ...string) (cp *controlPlane, err error) {
	cp = &controlPlane{dir: dir, bin: bin}
	defer func() {
		if err != nil {
			cp.Close()
		}
	}()
	newToken := func() string {
		var tok [16]byte
		_, _ = rand.Read(tok[:])
		return hex.EncodeToString(tok[:])
	}
	cp.token = newToken()
	cp.userTokens = map[string]string{"viewer": newToken(), "kubelet-api-user": newToken()}
	ports := make([]int, 4)
	for i := range ports {
		if ports[i], err = freePort(); err != nil {
			return cp, err
		}
	}
	etcdClient, etcdPeer, apiPort := ports[0], ports[1], ports[2]
	cp.server = fmt.Sprintf("https://127.0.0.1:%d", apiPort)

	// Credentials: the admin token, the service-account signing key, and a CA with the API
	// server's client certificate for the kubelet API.
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err == nil {
			err = os.WriteFile(p, data, 0o600)
		}
		return p
	}
	tokens := write("tokens.csv", fmt.Appendf(nil, "%s,admin,admin-uid,system:masters\n%s,viewer,viewer-uid\n%s,kubelet-api-user,kau-uid\n",
		cp.token, cp.userTokens["viewer"], cp.userTokens["kubelet-api-user"]))
	saKey, kerr := rsa.GenerateKey(rand.Reader, 2048)
	if kerr != nil {
		return cp, kerr
	}
	saKeyFile := write("sa.key", pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(saKey)}))
	ca, cerr := kubeletauth.NewCertificate("podlife-e2e-cluster-ca", true, nil, nil)
	if cerr != nil {
		return cp, cerr
	}
	cp.ca = ca
	client, cerr := kubeletauth.NewCertificate("kube-apiserver-kubelet-client", false, nil, ca)
	if cerr != nil {
		return cp, cerr
	}
	cp.clientCA = write("ca.crt", ca.CertPEM)
	clientCert := write("kubelet-client.crt", client.CertPEM)
	clientKey := write("kubelet-client.key", client.KeyPEM)
	cp.kubeletClient = [2]string{clientCert, clientKey}
	// The aggregation layer, as kubeadm configures it: a front-proxy CA and its client.
	fpCA, cerr := kubeletauth.NewCertificate("front-proxy-ca", true, nil, nil)
	if cerr != nil {
		return cp, cerr
	}
	fpClient, cerr := kubeletauth.NewCertificate("front-proxy-client", false, nil, fpCA)
	if cerr != nil {
		return cp, cerr
	}
	cp.frontProxyCA = write("front-proxy-ca.crt", fpCA.CertPEM)
	fpCert := write("front-proxy-client.crt", fpClient.CertPEM)
	fpKey := write("front-proxy-client.key", fpClient.KeyPEM)
	cp.kubeconfig = write("admin.kubeconfig", fmt.Appendf(nil, `apiVersion: v1
kind: Config
clusters:
- name: e2e
  cluster:
    server: %s
    insecure-skip-tls-verify: true
users:
- name: admin
  user:
    token: %s
contexts:
- name: e2e
  context: {cluster: e2e, user: admin}
current-context: e2e
`, cp.server, cp.token))
	if err != nil {
		return cp, err
	}

	etcdURL := fmt.Sprintf("http://127.0.0.1:%d", etcdClient)
	peerURL := fmt.Sprintf("http://127.0.0.1:%d", etcdPeer)
	// etcd 3.4 has no --unsafe-no-fsync: its data on tmpfs makes its fsyncs cheap.
	if cp.etcdData, err = os.MkdirTemp("/dev/shm", "pln-etcd-"); err != nil {
		return cp, err
	}
	if err = cp.start("etcd", etcd, "--name", "e2e", "--data-dir", cp.etcdData,
		"--listen-client-urls", etcdURL, "--advertise-client-urls", etcdURL,
		"--listen-peer-urls", peerURL, "--initial-advertise-peer-urls", peerURL,
		"--initial-cluster", "e2e="+peerURL); err != nil {
		return cp, err
	}
	if err = cp.start("kube-apiserver", filepath.Join(bin, "kube-apiserver"), append([]string{
		"--etcd-servers", etcdURL,
		"--bind-address", "127.0.0.1", "--advertise-address", "127.0.0.1",
		"--secure-port", strconv.Itoa(apiPort), "--cert-dir", filepath.Join(dir, "certs"),
		"--token-auth-file", tokens, "--client-ca-file", cp.clientCA,
		// Nodes run as system:node:NAME: the Node authorizer and NodeRestriction confine them
		// to their own Node, Lease, pods and the objects those pods refer to.
		"--authorization-mode", "Node,RBAC", "--enable-admission-plugins", "NodeRestriction",
		"--service-account-issuer", "https://kubernetes.default.svc",
		"--service-account-key-file", saKeyFile, "--service-account-signing-key-file", saKeyFile,
		"--service-cluster-ip-range", "10.0.0.0/24",
		// The kubelet API: the node's address and port from its status, its serving
		// certificate not verified (no --kubelet-certificate-authority: nodes generate their
		// own), the API server authenticated by its client certificate.
		"--kubelet-preferred-address-types", "InternalIP",
		"--kubelet-client-certificate", clientCert, "--kubelet-client-key", clientKey,
		// A loopback address cannot be the kubernetes Service's endpoint.
		"--endpoint-reconciler-type", "none",
		// The aggregation layer (TestKubectlTop's metrics-server): the proxy client certificate
		// and the request headers as kubeadm sets them; aggregated API servers are reached at
		// their Endpoints' address, as there is no kube-proxy to route a Service's cluster IP.
		"--requestheader-client-ca-file", cp.frontProxyCA, "--requestheader-allowed-names", "front-proxy-client",
		"--requestheader-username-headers", "X-Remote-User", "--requestheader-group-headers", "X-Remote-Group",
		"--requestheader-extra-headers-prefix", "X-Remote-Extra-",
		"--proxy-client-cert-file", fpCert, "--proxy-client-key-file", fpKey,
		"--enable-aggregator-routing=true",
		// As kubeadm's and upstream's e2e clusters: the API server accepts privileged and
		// hostProcess fields (the conformance suite's registry pod sets windowsOptions.hostProcess,
		// which a Linux node ignores); the node decides what it runs.
		"--allow-privileged=true",
		"--enable-priority-and-fairness=false", "--profiling=false"}, apiserverArgs...)...); err != nil {
		return cp, err
	}
	if err = cp.waitHealthy(ctx); err != nil {
		return cp, err
	}
	// The API server's kubelet client may use every node's kubelet API, as kubeadm binds it;
	// so may the token user kubelet-api-user (TestNodeKubeletAPIAuthz's TokenReview case).
	for _, b := range [][2]string{{"podlife-e2e:apiserver-kubelet", "kube-apiserver-kubelet-client"}, {"podlife-e2e:kubelet-api-user", "kubelet-api-user"}} {
		out, kerr := exec.CommandContext(ctx, filepath.Join(bin, "kubectl"), "--kubeconfig", cp.kubeconfig,
			"create", "clusterrolebinding", b[0], "--clusterrole", "system:kubelet-api-admin", "--user", b[1]).CombinedOutput()
		if kerr != nil {
			return cp, fmt.Errorf("clusterrolebinding %s: %w: %s", b[0], kerr, out)
		}
	}
	if err = cp.start("kube-scheduler", filepath.Join(bin, "kube-scheduler"),
		"--kubeconfig", cp.kubeconfig, "--leader-elect=false", "--secure-port", "0"); err != nil {
		return cp, err
	}
	if err = cp.start("kube-controller-manager", filepath.Join(bin, "kube-controller-manager"),
		"--kubeconfig", cp.kubeconfig, "--leader-elect=false", "--secure-port", "0",
		"--service-account-private-key-file", saKeyFile,
		"--root-ca-file", filepath.Join(dir, "certs", "apiserver.crt"),
		"--use-service-account-credentials=false"); err != nil {
		return cp, err
	}
	return cp, nil
}

// clientKubeconfig writes a kubeconfig whose user is a client certificate of the cluster's CA
// for cn in the groups orgs (as kubeadm's kubelet.conf is for system:node:NAME in
// system:nodes), and returns its path and the certificate.
func (cp *controlPlane) clientKubeconfig(name, cn string, orgs ...string) (string, *kubeletauth.Certificate, error) {
	cert, err := kubeletauth.NewCertificate(cn, false, nil, cp.ca, orgs...)
	if err != nil {
		return "", nil, err
	}
	p := filepath.Join(cp.dir, name+".kubeconfig")
	err = os.WriteFile(p, fmt.Appendf(nil, `apiVersion: v1
kind: Config
clusters:
- name: e2e
  cluster:
    server: %s
    insecure-skip-tls-verify: true
users:
- name: %s
  user:
    client-certificate-data: %s
    client-key-data: %s
contexts:
- name: e2e
  context: {cluster: e2e, user: %[2]s}
current-context: e2e
`, cp.server, name, base64.StdEncoding.EncodeToString(cert.CertPEM), base64.StdEncoding.EncodeToString(cert.KeyPEM)), 0o600)
	return p, cert, err
}

// start starts a component, its output in dir/NAME.log.
func (cp *controlPlane) start(name, bin string, args ...string) error {
	logPath := filepath.Join(cp.dir, name+".log")
	f, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer f.Close()
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	p := &process{name: name, cmd: cmd, log: logPath, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(p.done) }()
	cp.procs = append(cp.procs, p)
	return nil
}

// waitHealthy waits for the API server's /readyz.
func (cp *controlPlane) waitHealthy(ctx context.Context) error {
	hc := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	api := cp.procs[len(cp.procs)-1]
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, cp.server+"/readyz", nil)
		req.Header.Set("Authorization", "Bearer "+cp.token)
		resp, err := hc.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-api.done:
			return fmt.Errorf("kube-apiserver exited: see %s", api.log)
		case <-ctx.Done():
			return fmt.Errorf("kube-apiserver not ready (%v): see %s", err, api.log)
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// exited returns the components that exited.
func (cp *controlPlane) exited() []string {
	var out []string
	for _, p := range cp.procs {
		select {
		case <-p.done:
			out = append(out, p.name)
		default:
		}
	}
	return out
}

// Close stops the components, last started first: SIGTERM, SIGKILL after 10 s.
func (cp *controlPlane) Close() error {
	var errs []error
	for i := len(cp.procs) - 1; i >= 0; i-- {
		p := cp.procs[i]
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(10 * time.Second):
			_ = p.cmd.Process.Kill()
			<-p.done
			errs = append(errs, fmt.Errorf("%s did not stop on SIGTERM", p.name))
		}
	}
	cp.procs = nil
	if cp.etcdData != "" {
		errs = append(errs, os.RemoveAll(cp.etcdData))
	}
	return errors.Join(errs...)
}
