// SPDX-License-Identifier: MPL-2.0

package connect

import (
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// A bastion's host-key pins, checked as OpenSSH checks known_hosts (issue
// 60). A bastion usually holds several host keys (OpenSSH's default:
// ed25519, ecdsa and rsa) and presents one per handshake, the first of
// the client's host-key algorithms it has. So the algorithms offered are
// those of the keys pinned: a known_hosts line's key type, the
// certificate algorithms when an @cert-authority line is given (and only
// then: a bastion with a host certificate would otherwise present the
// certificate to a pin of its plain key). A fingerprint says no key type:
// the handshake is tried with each family of plain algorithms in turn
// until the bastion presents the pinned key, at most once per key type.
// Every pin given holds: with both a fingerprint and known_hosts, the key
// must match the fingerprint and be accepted by known_hosts, and an
// @revoked key is refused whatever else is set.

// hostKeyFamilies are the host-key algorithms of one key type, the
// strongest first; a bastion's key of that type answers any of them.
var hostKeyFamilies = map[string][]string{
	ssh.KeyAlgoED25519:  {ssh.KeyAlgoED25519},
	ssh.KeyAlgoECDSA256: {ssh.KeyAlgoECDSA256},
	ssh.KeyAlgoECDSA384: {ssh.KeyAlgoECDSA384},
	ssh.KeyAlgoECDSA521: {ssh.KeyAlgoECDSA521},
	ssh.KeyAlgoRSA:      {ssh.KeyAlgoRSASHA512, ssh.KeyAlgoRSASHA256},

	ssh.CertAlgoED25519v01:  {ssh.CertAlgoED25519v01},
	ssh.CertAlgoECDSA256v01: {ssh.CertAlgoECDSA256v01},
	ssh.CertAlgoECDSA384v01: {ssh.CertAlgoECDSA384v01},
	ssh.CertAlgoECDSA521v01: {ssh.CertAlgoECDSA521v01},
	ssh.CertAlgoRSAv01:      {ssh.CertAlgoRSASHA512v01, ssh.CertAlgoRSASHA256v01},
}

// plainKeyTypes and certKeyTypes are the key types tried, in OpenSSH's
// order of preference.
var (
	plainKeyTypes = []string{ssh.KeyAlgoED25519, ssh.KeyAlgoECDSA256, ssh.KeyAlgoECDSA384, ssh.KeyAlgoECDSA521, ssh.KeyAlgoRSA}
	certKeyTypes  = []string{ssh.CertAlgoED25519v01, ssh.CertAlgoECDSA256v01, ssh.CertAlgoECDSA384v01, ssh.CertAlgoECDSA521v01, ssh.CertAlgoRSAv01}
)

// hostKeyPins is a bastion's checked pins.
type hostKeyPins struct {
	known       ssh.HostKeyCallback // nil: no known_hosts
	positive    bool                // known_hosts has a line that accepts a key (not only @revoked)
	fingerprint string              // "": none
	keyTypes    []string            // the key types to offer, in order
}

// newHostKeyPins checks the pins: at least one, a SHA256 fingerprint,
// known_hosts lines that parse.
func newHostKeyPins(knownHosts, fingerprint string) (hostKeyPins, error) {
	p := hostKeyPins{fingerprint: strings.TrimSpace(fingerprint)}
	if knownHosts == "" && p.fingerprint == "" {
		return p, errors.New("an SSH bastion needs its host key pinned: known_hosts (lines as ssh-keyscan prints them) " +
			"or host_key_fingerprint (\"SHA256:…\", as ssh-keygen -lf prints it); there is no insecure default")
	}
	if p.fingerprint != "" && !strings.HasPrefix(p.fingerprint, "SHA256:") {
		return p, fmt.Errorf("host_key_fingerprint %q is not a SHA256 fingerprint (\"SHA256:\" and base64, as ssh-keygen -lf prints it)", p.fingerprint)
	}
	if knownHosts == "" {
		p.keyTypes = plainKeyTypes
		return p, nil
	}
	known, err := knownHostsCallback(knownHosts)
	if err != nil {
		return p, err
	}
	p.known = known
	// The key types the lines pin. The lines are the bastion's alone (the
	// provider's ssh_bastions entry of one server), so every line counts,
	// whatever host pattern it names; knownhosts matches the host.
	types := map[string]bool{}
	rest := []byte(knownHosts)
	for {
		var marker string
		var key ssh.PublicKey
		marker, _, key, _, rest, err = ssh.ParseKnownHosts(rest)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return p, fmt.Errorf("known_hosts cannot be read: %v", err)
		}
		switch marker {
		case "revoked":
		case "cert-authority":
			p.positive = true
			for _, t := range certKeyTypes {
				types[t] = true
			}
		default:
			p.positive = true
			types[key.Type()] = true
		}
	}
	if !p.positive {
		// Only @revoked lines: the fingerprint is the pin (newSSHBastion
		// asks for one), known_hosts only refuses.
		if p.fingerprint == "" {
			return p, errors.New("known_hosts holds only @revoked lines: pin the bastion's key too (a known_hosts line or host_key_fingerprint)")
		}
		p.keyTypes = plainKeyTypes
		return p, nil
	}
	for _, t := range append(slices.Clone(certKeyTypes), plainKeyTypes...) {
		if types[t] {
			p.keyTypes = append(p.keyTypes, t)
		}
	}
	return p, nil
}

// algorithms are the host-key algorithms of keyTypes, in order.
func algorithms(keyTypes []string) []string {
	var out []string
	for _, t := range keyTypes {
		out = append(out, hostKeyFamilies[t]...)
	}
	return out
}

// hostKeyRefusal is one handshake's verdict on a host key its pins do
// not accept; the dial reports the last as a configError marked
// hostKey (refusal).
type hostKeyRefusal struct {
	msg string
	// retry: another key type of the bastion may still match (a mismatch,
	// not a revoked key or a bad certificate); presented says which key
	// was refused and why, for the refusal once none is left.
	retry     bool
	presented string
}

func (e *hostKeyRefusal) Error() string { return "SSH: " + e.msg }

// refusal is the error a dial returns for it.
func (e *hostKeyRefusal) refusal() error { return &ConfigError{Kind: "SSH", Msg: e.msg, hostKey: true} }

// IsHostKeyRefusal reports whether err is a bastion host key that its
// pins do not accept: an identity not proven, which the provider reports
// as an error even where it keeps state on other connection failures (a
// refresh), so that a changed bastion identity never passes as "no
// changes".
func IsHostKeyRefusal(err error) bool {
	var ce *ConfigError
	return errors.As(err, &ce) && ce.hostKey
}

// check is the pins' verdict on the key a bastion presented.
func (p hostKeyPins) check(b *SSHBastion, hostname string, remote net.Addr, key ssh.PublicKey) error {
	seen, what := presentedKey(key)
	refuse := func(retry bool, why string) error {
		return &hostKeyRefusal{retry: retry, presented: what + ", " + why,
			msg: fmt.Sprintf("the bastion %s of server %q presented %s, %s", b.addr(), b.server, what, why)}
	}
	if p.known != nil {
		err := p.known(hostname, remote, key)
		var ke *knownhosts.KeyError
		var re *knownhosts.RevokedError
		switch {
		case err == nil:
		case errors.As(err, &re):
			return refuse(false, "which known_hosts marks @revoked: refused whatever else is pinned")
		case errors.As(err, &ke) && len(ke.Want) > 0:
			return refuse(true, "which does not match the key known_hosts pins for it (the host key changed)")
		case errors.As(err, &ke):
			if p.positive {
				return refuse(true, "and known_hosts has no key for that host (an unknown host key)")
			}
		case isCert(key):
			// knownhosts checked the certificate against the
			// @cert-authority lines: principal, validity, signature.
			return refuse(false, "whose certificate known_hosts does not accept: "+err.Error()+
				"; the bastion needs a host certificate signed by the pinned authority, valid now, for the host name it is reached by")
		default:
			return refuse(false, "which known_hosts does not accept: "+err.Error())
		}
	}
	if p.fingerprint != "" && seen != p.fingerprint {
		return refuse(true, "not the pinned "+p.fingerprint)
	}
	return nil
}

// presentedKey is a key's SHA256 fingerprint and how messages name it: a
// certificate by its host key's fingerprint and its principals.
func presentedKey(key ssh.PublicKey) (fingerprint, what string) {
	if c, ok := key.(*ssh.Certificate); ok {
		fp := ssh.FingerprintSHA256(c.Key)
		return fp, fmt.Sprintf("a host certificate (%s) for key %s, principals %q", key.Type(), fp, c.ValidPrincipals)
	}
	fp := ssh.FingerprintSHA256(key)
	return fp, fmt.Sprintf("host key %s (%s)", fp, key.Type())
}

func isCert(key ssh.PublicKey) bool {
	_, ok := key.(*ssh.Certificate)
	return ok
}

// keyTypeOf is the pins' key type a presented key counts against.
func keyTypeOf(key ssh.PublicKey) string {
	if c, ok := key.(*ssh.Certificate); ok {
		for _, t := range certKeyTypes {
			if strings.TrimSuffix(t, "-cert-v01@openssh.com") == c.Key.Type() {
				return t
			}
		}
	}
	return key.Type()
}

// noneMatched is the refusal once every key type pinned was tried: the
// keys the bastion presented, and the pins; never advice to pin a
// certificate's fingerprint (that would drop the certificate's checks).
func (p hostKeyPins) noneMatched(b *SSHBastion, presented []string) error {
	var pins []string
	if p.fingerprint != "" {
		pins = append(pins, "host_key_fingerprint "+p.fingerprint)
	}
	if p.known != nil {
		pins = append(pins, "the known_hosts lines")
	}
	msg := fmt.Sprintf("the bastion %s of server %q presented none of the pinned keys (%s): %s. If one of those keys is the "+
		"bastion's (check on the bastion: ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub), pin it in the provider's ssh_bastions; "+
		"otherwise something else answers at that address", b.addr(), b.server, strings.Join(pins, " and "), strings.Join(presented, "; "))
	if len(presented) == 0 {
		msg = fmt.Sprintf("the bastion %s of server %q has no host key of the types pinned (%s): pin one of its keys "+
			"(ssh-keyscan -p %d %s lists them)", b.addr(), b.server, strings.Join(p.keyTypes, ", "), b.port, b.host)
	}
	return &ConfigError{Kind: "SSH", Msg: msg, hostKey: true}
}
