// SPDX-License-Identifier: MPL-2.0

package testserver

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strings"
)

// BastionOnlyHost is a database host name that only an SSHD started with
// SSHDResolves(BastionOnlyHost, "127.0.0.1") resolves: the private name of
// a database behind a bastion. Anything else here, the provider included,
// fails to resolve it (.invalid never resolves, RFC 6761), so a connection
// that does not go through the bastion fails. The test servers'
// certificates name it, so tls = "verify-full" checks it like any host.
const BastionOnlyHost = "db.bastion-only.invalid"

// SSHDOption changes how StartSSHD runs sshd.
type SSHDOption func(*sshdOptions)

type sshdOptions struct {
	hosts       map[string]string // name -> address, in sshd's own /etc/hosts
	allKeyTypes bool              // ecdsa and rsa host keys too (SSHDAllHostKeyTypes)
	cert        *hostCert         // a host certificate (SSHDHostCertificate)
}

// SSHDResolves makes sshd (and so every channel it opens to a host name)
// resolve name to addr, where nothing else on this machine does: sshd runs
// in a mount namespace of its own (unshare -m) whose /etc/hosts is this
// machine's plus that line. Needs root; StartSSHD skips the test otherwise.
func SSHDResolves(name, addr string) SSHDOption {
	return func(o *sshdOptions) {
		if o.hosts == nil {
			o.hosts = map[string]string{}
		}
		o.hosts[name] = addr
	}
}

// hostsFile is this machine's /etc/hosts with the option's names added.
func (o sshdOptions) hostsFile() []byte {
	base, _ := os.ReadFile("/etc/hosts")
	var b strings.Builder
	b.Write(base)
	if len(base) > 0 && base[len(base)-1] != '\n' {
		b.WriteByte('\n')
	}
	for _, name := range slices.Sorted(maps.Keys(o.hosts)) {
		fmt.Fprintf(&b, "%s %s\n", o.hosts[name], name)
	}
	return []byte(b.String())
}

// command is sshd's command line: sshd itself, or, with names of its own,
// sshd in a private mount namespace over whose /etc/hosts the hosts file
// is bound (the bind is private to the namespace: the machine's file is
// untouched; exec keeps sshd the process Kill signals).
func (d *SSHD) command() *exec.Cmd {
	args := []string{"-D", "-e", "-f", d.conf}
	if d.hostsFile == "" {
		return exec.Command(SSHDBinary, args...)
	}
	script := `mount --bind "$1" /etc/hosts && shift && exec "$@"`
	return exec.Command("unshare", append([]string{"--mount", "--propagation", "private", "sh", "-c", script, "sh", d.hostsFile, SSHDBinary}, args...)...)
}
