// SPDX-License-Identifier: MPL-2.0

package bench

import (
	"fmt"
	"strings"
)

// BASTION=1 adds tenantdb through an SSH bastion, right after the direct
// tenantdb workload of each round, on the same server and admin, so the
// two can be compared phase by phase: statements per resource, connections
// opened and peak sessions (the server's counts, as for every workload),
// and the SSH connections, counted twice: by the bastion (sshd's
// "Accepted publickey" log lines in the phase) and by the provider
// processes (their sockets to the bastion's port, polled with the other
// /proc figures). The bounds are checked: one SSH connection per
// provider process, and the admin's peak sessions within terraform's
// parallelism + 2.

// checkBastion fails a bastion phase that broke those bounds.
func (r *runner) checkBastion(s *Sample) {
	if s.SSHMost > 1 {
		r.fail(s, "a provider process opened %d SSH connections to the bastion (one per process expected)", s.SSHMost)
	}
	if s.SSHAccepted > s.SSHProcs {
		r.fail(s, "the bastion accepted %d SSH connections from %d provider processes (one per process expected)", s.SSHAccepted, s.SSHProcs)
	}
	if limit := r.parallelism() + 2; s.PeakOK && s.PeakConns > limit {
		r.fail(s, "peak %d sessions of the admin through the bastion, over parallelism + 2 = %d", s.PeakConns, limit)
	}
}

// parallelism is terraform's -parallelism in this run.
func (r *runner) parallelism() int {
	if r.cfg.Parallelism > 0 {
		return r.cfg.Parallelism
	}
	return 10
}

// bastionReport is the direct-against-bastion table: per phase, the two
// tenantdb workloads' medians.
func bastionReport(res *Result) string {
	var b strings.Builder
	n := float64(Resources(res.Config.Tenants))
	b.WriteString("### Direct and through the SSH bastion (tenantdb)\n\n")
	b.WriteString("Statements per resource (the server's statement log); connections the admin opened and its peak " +
		"sessions (the server's counts); SSH connections the bastion accepted (its log), and the provider processes that " +
		"had one open with the most any of them opened (their sockets, polled).\n\n")
	b.WriteString("| phase | path | wall s | DDL/DCL per resource | reads per resource | other per resource | conns opened | peak conns | SSH conns (bastion) | provider procs with SSH | most per process |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	per := func(x float64, ok bool) string {
		if !ok {
			return "?"
		}
		return fmt.Sprintf("%.2f", x/n)
	}
	for _, ph := range Phases {
		for _, w := range []string{WorkTenantDB, WorkBastion} {
			st := res.Stats(w, ph.Key)
			path := map[string]string{WorkTenantDB: "direct", WorkBastion: "bastion"}[w]
			if st.Runs == 0 {
				fmt.Fprintf(&b, "| %s | %s | failed | | | | | | | | |\n", ph.Title, path)
				continue
			}
			ssh := " – | – | – |"
			if w == WorkBastion {
				ssh = fmt.Sprintf(" %s | %s | %s |", count(st.SSHAccepted, true, true), count(st.SSHProcs, true, true), count(st.SSHMost, true, true))
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s |%s\n", ph.Title, path, secs(st.Wall),
				per(st.DDL, st.StmtsOK), per(st.Reads, st.StmtsOK), per(st.Other, st.StmtsOK),
				count(st.Conns, st.ConnsOK, true), count(st.Peak, st.PeakOK, true), ssh)
		}
	}
	b.WriteString("\n")
	return b.String()
}
