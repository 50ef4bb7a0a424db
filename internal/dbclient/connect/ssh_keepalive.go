// SPDX-License-Identifier: MPL-2.0

package connect

import (
	"time"

	"golang.org/x/crypto/ssh"
)

// A bastion link that goes silent (NAT state lost, the session stopped)
// drops no TCP connection: without keepalives every later channel open
// waits on it until its deadline. So each SSH connection sends
// keepalive@openssh.com (any reply counts, OpenSSH's "unknown request"
// included) every sshKeepAliveInterval, and is closed once
// sshKeepAliveMisses go unanswered in a row, as OpenSSH's
// ServerAliveInterval and ServerAliveCountMax do; the next connection
// then dials the bastion again (tunnel.connected sees it dead).
var (
	sshKeepAliveInterval = 10 * time.Second
	sshKeepAliveMisses   = 3
)

// keepAlive runs for client until dead is closed.
func keepAlive(client *ssh.Client, dead <-chan struct{}) {
	tick := time.NewTicker(sshKeepAliveInterval)
	defer tick.Stop()
	replies := make(chan error, 1)
	waiting, missed := false, 0
	for {
		select {
		case <-dead:
			return
		case err := <-replies:
			waiting = false
			if err != nil {
				client.Close()
				return
			}
			missed = 0
		case <-tick.C:
			if waiting {
				// The last request is still unanswered.
				if missed++; missed >= sshKeepAliveMisses {
					client.Close()
					return
				}
				continue
			}
			waiting = true
			go func() {
				_, _, err := client.SendRequest("keepalive@openssh.com", true, nil)
				replies <- err
			}()
		}
	}
}
