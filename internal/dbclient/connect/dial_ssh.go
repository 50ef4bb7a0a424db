// SPDX-License-Identifier: MPL-2.0

package connect

import (
	"context"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
	"golang.org/x/crypto/ssh/knownhosts"
)

// An SSH bastion (jump host): the admin's connections to the database are
// channels ("direct-tcpip", what `ssh -W`/`ssh -L` use) of one SSH
// connection per bastion, shared by every pool of the process and closed
// with the registry. The database host is resolved by the bastion, so it
// may be a name only the private network knows. The host key is always
// pinned (known_hosts lines or a SHA256 fingerprint): there is no "accept
// any key" mode, and an unknown or changed key is refused naming the
// fingerprint the bastion presented.

// SSHBastionConfig is what the provider knows of a server's bastion: the
// address and user (the db_server's, non-secret) and the key and pins
// (the provider configuration's).
type SSHBastionConfig struct {
	Host string
	Port int
	User string
	// PrivateKey (PEM, OpenSSH or PKCS#1/8) with an optional Passphrase,
	// or AgentSocket (the path of an ssh-agent's socket): exactly one.
	PrivateKey, Passphrase, AgentSocket string
	// KnownHosts (known_hosts lines) and/or HostKeyFingerprint
	// ("SHA256:…", as ssh-keygen -lf prints it): at least one.
	KnownHosts, HostKeyFingerprint string
	// Server names the db_server in messages.
	Server string
}

// SSHBastion is a checked SSHBastionConfig. It never prints its key.
type SSHBastion struct {
	host, user, server string
	port               int
	signer             ssh.Signer // nil: the agent
	agentSocket        string
	pins               hostKeyPins
	id                 string // pool and tunnel key, in memory only
}

// NewSSHBastion checks c: a usable key or an agent socket, and a pin.
// Errors never quote the key or passphrase.
func NewSSHBastion(c SSHBastionConfig) (*SSHBastion, error) {
	b := &SSHBastion{host: c.Host, user: c.User, port: c.Port, server: c.Server, agentSocket: c.AgentSocket}
	if b.port == 0 {
		b.port = 22
	}
	if c.Host == "" || c.User == "" {
		return nil, errors.New("an SSH bastion needs a host and a user")
	}
	switch {
	case c.PrivateKey != "" && c.AgentSocket != "":
		return nil, errors.New("give the SSH bastion either private_key or agent_socket, not both")
	case c.PrivateKey != "":
		var err error
		if c.Passphrase != "" {
			b.signer, err = ssh.ParsePrivateKeyWithPassphrase([]byte(c.PrivateKey), []byte(c.Passphrase))
		} else {
			b.signer, err = ssh.ParsePrivateKey([]byte(c.PrivateKey))
		}
		if err != nil {
			var missing *ssh.PassphraseMissingError
			if errors.As(err, &missing) {
				return nil, errors.New("the SSH private key is encrypted: give its passphrase")
			}
			if errors.Is(err, x509.IncorrectPasswordError) {
				return nil, errors.New("private_key_passphrase does not decrypt the SSH private key: give that key's passphrase")
			}
			return nil, errors.New("the SSH private key cannot be read (PEM or OpenSSH format, with the right passphrase if it has one)")
		}
	case c.AgentSocket == "":
		return nil, errors.New("an SSH bastion needs private_key or agent_socket")
	}
	pins, err := newHostKeyPins(c.KnownHosts, c.HostKeyFingerprint)
	if err != nil {
		return nil, err
	}
	b.pins = pins
	h := sha256.New()
	for _, part := range []string{c.Host, strconv.Itoa(b.port), c.User, c.PrivateKey, c.Passphrase, c.AgentSocket, c.KnownHosts, pins.fingerprint} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	b.id = hex.EncodeToString(h.Sum(nil)[:12])
	return b, nil
}

// knownHostsCallback reads known_hosts lines. knownhosts only reads files:
// the lines are written to a private temporary file, read, and removed.
func knownHostsCallback(lines string) (ssh.HostKeyCallback, error) {
	f, err := os.CreateTemp("", "tenantdb-known-hosts-")
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name())
	_, werr := f.WriteString(lines + "\n")
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return nil, werr
	}
	cb, err := knownhosts.New(f.Name())
	if err != nil {
		return nil, fmt.Errorf("known_hosts cannot be read: %s", strings.ReplaceAll(err.Error(), f.Name(), "known_hosts"))
	}
	return cb, nil
}

func (b *SSHBastion) addr() string { return net.JoinHostPort(b.host, strconv.Itoa(b.port)) }

func (b *SSHBastion) String() string { return fmt.Sprintf("ssh://%s@%s", b.user, b.addr()) }
func (b *SSHBastion) GoString() string {
	return "dbclient.SSHBastion(" + b.String() + ")"
}

// tunnels holds one SSH connection per bastion (by id) for the process,
// shared by every registry that reaches the bastion. Each registry holds
// the tunnels of its servers (HoldTunnel) and lets go of them when it
// closes (ReleaseTunnel); the last to let go closes the connection, so
// closing one registry never cuts another's connections under a
// statement (a process may have several: the acceptance tests serve
// providers in-process side by side).
var tunnels struct {
	sync.Mutex
	m map[string]*tunnel
}

type tunnel struct {
	b       *SSHBastion
	holders int // registries holding it (tunnels' lock)
	mu      sync.Mutex
	client  *ssh.Client
	dead    chan struct{} // closed when client's connection ends
	// hostKey is the pinned key client's bastion presented.
	hostKey ssh.PublicKey
}

func tunnelFor(b *SSHBastion) *tunnel {
	tunnels.Lock()
	defer tunnels.Unlock()
	return tunnelLocked(b)
}

// tunnelLocked is b's tunnel, made when there is none; tunnels' lock held.
func tunnelLocked(b *SSHBastion) *tunnel {
	if tunnels.m == nil {
		tunnels.m = map[string]*tunnel{}
	}
	t := tunnels.m[b.id]
	if t == nil {
		t = &tunnel{b: b}
		tunnels.m[b.id] = t
	}
	return t
}

// HoldTunnel keeps b's SSH connection open for a registry until it calls
// ReleaseTunnel.
func HoldTunnel(b *SSHBastion) {
	tunnels.Lock()
	defer tunnels.Unlock()
	tunnelLocked(b).holders++
}

// ReleaseTunnel lets go of a hold on b's tunnel; the last hold's release
// ends the SSH connection (every channel on it).
func ReleaseTunnel(b *SSHBastion) {
	tunnels.Lock()
	defer tunnels.Unlock()
	t := tunnels.m[b.id]
	if t == nil {
		return
	}
	if t.holders--; t.holders > 0 {
		return
	}
	t.mu.Lock()
	if t.client != nil {
		t.client.Close()
		t.client = nil
	}
	t.mu.Unlock()
	delete(tunnels.m, b.id)
}

// sshHandshakeTimeout bounds the SSH handshake when ctx has no deadline.
const sshHandshakeTimeout = 30 * time.Second

// connected returns the live SSH connection, dialling it when there is
// none or the last one ended.
func (t *tunnel) connected(ctx context.Context) (*ssh.Client, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.client != nil {
		select {
		case <-t.dead:
			t.client.Close()
			t.client = nil
		default:
			return t.client, nil
		}
	}
	b := t.b
	auth := []ssh.AuthMethod{}
	if b.signer != nil {
		auth = append(auth, ssh.PublicKeys(b.signer))
	} else {
		ag, err := net.Dial("unix", b.agentSocket)
		if err != nil {
			return nil, &ConfigError{Kind: "SSH", Msg: fmt.Sprintf("the ssh-agent socket of server %q's bastion cannot be reached: %v", b.server, err)}
		}
		defer ag.Close() // signing ends with the handshake
		auth = append(auth, ssh.PublicKeysCallback(agent.NewClient(ag).Signers))
	}
	// One handshake per key type of the bastion's until it presents a
	// pinned key (ssh_host_pins.go): the key types offered shrink by the
	// one each refused key was of.
	keyTypes := b.pins.keyTypes
	var presented []string
	for {
		var refusal *hostKeyRefusal
		var key ssh.PublicKey
		cfg := &ssh.ClientConfig{User: b.user, Auth: auth, Timeout: sshHandshakeTimeout, HostKeyAlgorithms: algorithms(keyTypes),
			HostKeyCallback: func(hostname string, remote net.Addr, k ssh.PublicKey) error {
				key = k
				return b.pins.check(b, hostname, remote, k)
			}}
		conn, c, chans, reqs, err := b.handshake(ctx, cfg)
		switch {
		case err == nil:
			_ = conn.SetDeadline(time.Time{})
			t.client, t.hostKey = ssh.NewClient(c, chans, reqs), key
			dead := make(chan struct{})
			t.dead = dead
			go func(cl *ssh.Client) { _ = cl.Wait(); close(dead) }(t.client)
			go keepAlive(t.client, dead)
			return t.client, nil
		case errors.As(err, &refusal) && refusal.retry && key != nil:
			presented = append(presented, refusal.presented)
			keyTypes = slices.DeleteFunc(slices.Clone(keyTypes), func(kt string) bool { return kt == keyTypeOf(key) })
			if len(keyTypes) == 0 {
				return nil, b.pins.noneMatched(b, presented)
			}
		case errors.As(err, &refusal):
			return nil, refusal.refusal()
		case strings.Contains(err.Error(), "no common algorithm for host key"):
			// The bastion has no key of the types left to try.
			return nil, b.pins.noneMatched(b, presented)
		default:
			return nil, err
		}
	}
}

// handshake dials the bastion and runs one SSH handshake with cfg; the
// connection is closed unless it succeeds.
func (b *SSHBastion) handshake(ctx context.Context, cfg *ssh.ClientConfig) (net.Conn, ssh.Conn, <-chan ssh.NewChannel, <-chan *ssh.Request, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", b.addr())
	if err != nil {
		return nil, nil, nil, nil, NewHopError(ctx, HopBastion, b.addr(), "", err, false)
	}
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(sshHandshakeTimeout)
	}
	_ = conn.SetDeadline(deadline)
	c, chans, reqs, err := ssh.NewClientConn(conn, b.addr(), cfg)
	if err == nil {
		return conn, c, chans, reqs, nil
	}
	conn.Close()
	var refusal *hostKeyRefusal
	if errors.As(err, &refusal) {
		return nil, nil, nil, nil, refusal
	}
	var ce *ConfigError
	if errors.As(err, &ce) {
		return nil, nil, nil, nil, ce
	}
	if strings.Contains(err.Error(), "unable to authenticate") && b.signer == nil {
		return nil, nil, nil, nil, &ConfigError{Kind: "SSH", Msg: fmt.Sprintf("the bastion %s refused user %q with every key of the ssh-agent "+
			"at %s (the agent_socket of the provider's ssh_bastions[%q]): add the user's key to that agent (ssh-add; "+
			"ssh-add -l lists what it holds) and its public key to that user's authorized_keys on the bastion",
			b.addr(), b.user, b.agentSocket, b.server)}
	}
	if strings.Contains(err.Error(), "unable to authenticate") {
		return nil, nil, nil, nil, &ConfigError{Kind: "SSH", Msg: fmt.Sprintf("the bastion %s refused user %q with the key of the provider's "+
			"ssh_bastions[%q]: add its public key to that user's authorized_keys on the bastion", b.addr(), b.user, b.server)}
	}
	// A bastion that does not finish the handshake before the deadline is
	// not dialled again by a retry (hopError): it did not answer.
	return nil, nil, nil, nil, NewHopError(ctx, HopBastion, b.addr(), "", err, false)
}

// forget drops client if it is still the tunnel's, so the next dial
// starts a new SSH connection.
func (t *tunnel) forget(client *ssh.Client) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.client == client {
		client.Close()
		t.client = nil
	}
}

// dial opens a channel to addr (resolved by the bastion). A dropped SSH
// connection is dialled again once, as a lost database connection is.
func (t *tunnel) dial(ctx context.Context, addr string) (net.Conn, error) {
	for attempt := 0; ; attempt++ {
		client, err := t.connected(ctx)
		if err != nil {
			return nil, err
		}
		ch, err := client.DialContext(ctx, "tcp", addr)
		if err == nil {
			return withDeadlines(ch, addr), nil
		}
		var refused *ssh.OpenChannelError
		if errors.As(err, &refused) {
			// The bastion is up and answered: the database address is
			// what failed.
			return nil, NewHopError(ctx, HopDatabase, addr, "SSH bastion "+t.b.addr(), err, false)
		}
		if ctx.Err() != nil {
			// No answer to the channel open before the deadline: the
			// link may be dead (NAT state lost, the session stopped), so
			// the next connection dials the bastion again rather than
			// wait on this one (a live link costs one handshake).
			// A retry dials anew, so it is worth one (transient).
			t.forget(client)
			return nil, &HopError{hop: HopBastion, addr: t.b.addr(), class: ClassTransient,
				msg: fmt.Sprintf("the SSH bastion %s of server %q did not open a channel to %s in time (%v): the bastion "+
					"or its link stopped answering", t.b.addr(), t.b.server, addr, ctx.Err())}
		}
		t.forget(client)
		if attempt == 1 {
			return nil, NewHopError(ctx, HopBastion, t.b.addr(), "", err, false)
		}
	}
}

// withDeadlines gives an SSH channel real deadlines: the drivers rely on
// them (pgx's cancel handling, the MySQL greeting check), and x/crypto's
// channels refuse them. A net.Pipe has them; two copies join it to the
// channel, and closing either end ends both.
func withDeadlines(ch net.Conn, addr string) net.Conn {
	mine, theirs := net.Pipe()
	go func() {
		_, _ = io.Copy(ch, theirs)
		ch.Close()
		theirs.Close()
	}()
	go func() {
		_, _ = io.Copy(theirs, ch)
		theirs.Close()
		ch.Close()
	}()
	return &pipeConn{Conn: mine, remote: dialledAddr(addr)}
}

// pipeConn reports the address it was dialled to as its remote address:
// pgx sends a cancel request to a connection's RemoteAddr, which must
// then go through the bastion to the same host:port (an SSH channel to a
// host name reports a zero address).
type pipeConn struct {
	net.Conn
	remote net.Addr
}

func (c *pipeConn) RemoteAddr() net.Addr { return c.remote }

type dialledAddr string

func (a dialledAddr) Network() string { return "tcp" }
func (a dialledAddr) String() string  { return string(a) }

// dialNet dials addr directly, or through the server's bastion.
func (s Spec) dialNet(ctx context.Context, network, addr string) (net.Conn, error) {
	if s.Bastion != nil {
		return tunnelFor(s.Bastion).dial(ctx, addr)
	}
	if s.Proxy != nil {
		return s.Proxy.dial(ctx, s.Name, addr)
	}
	var d net.Dialer
	return d.DialContext(ctx, network, addr)
}

// bastionID is the bastion's part of the pool key ("" without one).
func (s Spec) bastionID() string {
	if s.Bastion == nil {
		return ""
	}
	return s.Bastion.id
}
