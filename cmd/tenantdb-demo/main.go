// SPDX-License-Identifier: MPL-2.0

// Command tenantdb-demo is `make demo`: it builds the provider, gets a
// server, applies examples/demo with terraform and checks what it promises,
// one line per step (see internal/demo).
//
//	make demo                   # PostgreSQL, a throwaway server from local binaries (or Docker)
//	make demo ENGINE=mariadb    # MariaDB
//	DEMO_HOST=db.internal DEMO_ADMIN_PASSWORD=... make demo   # a server you run
//
// Environment: ENGINE (postgres, mariadb, mysql); for a server you run:
// DEMO_HOST, DEMO_PORT, DEMO_ADMIN (default tenantdb_admin),
// DEMO_ADMIN_PASSWORD, DEMO_CA_FILE, DEMO_TLS (default verify-full with a
// CA file, else require). Exit status: 0 pass, 1 a step failed, 2 nothing
// to run on (or a tool missing), 130 interrupted.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/demo"
)

func main() {
	engine := flag.String("engine", os.Getenv("ENGINE"), "postgres (default), mariadb or mysql; default $ENGINE")
	flag.Parse()

	cfg := demo.Config{Engine: *engine, Keep: os.Getenv("KEEP") == "1"}
	if host := os.Getenv("DEMO_HOST"); host != "" {
		e, err := existing(host)
		if err != nil {
			fmt.Fprintf(os.Stderr, "✗ %v\n", err)
			os.Exit(demo.ExitNoServer)
		}
		cfg.Existing = e
	}

	// The first SIGINT/SIGTERM interrupts the step in progress and lets the
	// cleanup run; a second one exits at once (a throwaway server's
	// watchdog still stops it and removes its files).
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		sig := <-sigs
		fmt.Fprintf(os.Stderr, "\n%v: stopping, then cleaning up (again to quit at once)\n", sig)
		cancel()
		<-sigs
		os.Exit(demo.ExitInterrupted)
	}()
	// Under `go run`, the go command ignores SIGINT and is what make
	// signals: have the kernel send SIGTERM here if it goes away.
	dieWithParent()

	os.Exit(demo.Run(ctx, cfg).ExitCode)
}

func existing(host string) (*demo.Existing, error) {
	e := &demo.Existing{
		Host:     host,
		Admin:    os.Getenv("DEMO_ADMIN"),
		Password: os.Getenv("DEMO_ADMIN_PASSWORD"),
		TLS:      os.Getenv("DEMO_TLS"),
	}
	if p := os.Getenv("DEMO_PORT"); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return nil, fmt.Errorf("DEMO_PORT=%s is not a port", p)
		}
		e.Port = n
	}
	if f := os.Getenv("DEMO_CA_FILE"); f != "" {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("DEMO_CA_FILE: %w", err)
		}
		if e.CAPEM, err = demo.CAFromFile("DEMO_CA_FILE="+f, b); err != nil {
			return nil, err
		}
	}
	if e.Password == "" {
		return nil, fmt.Errorf("DEMO_HOST=%s needs DEMO_ADMIN_PASSWORD (the admin login's password; see README)", host)
	}
	return e, nil
}
