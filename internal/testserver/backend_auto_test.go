// SPDX-License-Identifier: MPL-2.0

package testserver

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// TestAutoBackendDockerImages: in auto mode a Docker daemon that answers is
// used only when it can start the engine's image: it has the image, or a
// registry it asks serves it. A daemon with neither (as on the project's
// machines: no images, no registry) would fail every test, so auto picks
// the local backend and says so once per image, and asks the daemon once
// per image and process however many servers start. The daemon is a fake
// Docker API on a unix socket (DOCKER_HOST); each case runs in a child
// process, since the daemon checks are made once per process.
func TestAutoBackendDockerImages(t *testing.T) {
	for _, c := range []struct {
		name            string
		hasImage, serve bool
		want            string
	}{
		{"no image, no registry", false, false, BackendLocal},
		{"image on the daemon", true, false, BackendDocker},
		{"a registry serves it", false, true, BackendDocker},
	} {
		t.Run(c.name, func(t *testing.T) {
			fake := startFakeDockerd(t, c.hasImage, c.serve)
			cmd := exec.Command(os.Args[0], "-test.run=^TestAutoBackendHelper$", "-test.v")
			cmd.Env = append(os.Environ(), "TESTSERVER_AUTO_HELPER=1",
				"DOCKER_HOST=unix://"+fake.sock, "TESTCONTAINERS_RYUK_DISABLED=true",
				EnvBackend+"=auto", EnvMySQLDSN+"=", EnvPostgresDSN+"=",
				EnvMySQLImage+"=mariadb:11.4", EnvPostgresImage+"=postgres:15")
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("helper: %v\n%s", err, out)
			}
			got := regexp.MustCompile(`(?m)^BACKEND (\S+) (\S+)$`).FindAllStringSubmatch(string(out), -1)
			if len(got) != 4 {
				t.Fatalf("helper printed %d BACKEND lines, want 4:\n%s", len(got), out)
			}
			for _, g := range got {
				if g[2] != c.want {
					t.Errorf("auto chose %s for %s, want %s\n%s", g[2], g[1], c.want, out)
				}
			}
			said := strings.Count(string(out), "running local servers instead")
			if want := map[bool]int{true: 2, false: 0}[c.want == BackendLocal]; said != want {
				t.Errorf("the fallback was said %d times, want %d (once per image):\n%s", said, want, out)
			}
			for _, image := range []string{"mariadb:11.4", "postgres:15"} {
				if n := fake.count("/images/" + image + "/json"); n != 1 {
					t.Errorf("the daemon was asked for %s %d times, want once per process", image, n)
				}
				wantRegistry := map[bool]int{true: 0, false: 1}[c.hasImage]
				if n := fake.count("/distribution/" + image + "/json"); n != wantRegistry {
					t.Errorf("the registry was asked for %s %d times, want %d", image, n, wantRegistry)
				}
			}
		})
	}
}

// TestAutoBackendHelper is the child of TestAutoBackendDockerImages: it
// chooses the backend twice per engine and prints what auto picked.
func TestAutoBackendHelper(t *testing.T) {
	if os.Getenv("TESTSERVER_AUTO_HELPER") == "" {
		return
	}
	for _, engine := range []string{EngineMySQL, EngineMySQL, EnginePostgres, EnginePostgres} {
		b, err := chooseBackend(engine, startOptions{})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("BACKEND %s %s\n", engine, b)
	}
}

// fakeDockerd answers the few Docker API calls the backend choice makes,
// and counts the requests by path (the API version prefix removed).
type fakeDockerd struct {
	sock string
	mu   sync.Mutex
	seen map[string]int
}

func (f *fakeDockerd) count(path string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.seen[path]
}

var apiVersionPrefix = regexp.MustCompile(`^/v[0-9.]+/`)

func startFakeDockerd(t *testing.T, hasImage, registry bool) *fakeDockerd {
	t.Helper()
	dir, err := os.MkdirTemp("", "fakedockerd-") // short: a socket path has 107 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	f := &fakeDockerd{sock: filepath.Join(dir, "docker.sock"), seen: map[string]int{}}
	l, err := net.Listen("unix", f.sock)
	if err != nil {
		t.Fatal(err)
	}
	reply := func(w http.ResponseWriter, code int, body string) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Api-Version", "1.47")
		w.WriteHeader(code)
		fmt.Fprint(w, body)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path := apiVersionPrefix.ReplaceAllString(r.URL.Path, "/")
		f.mu.Lock()
		f.seen[path]++
		f.mu.Unlock()
		switch {
		case path == "/_ping":
			w.Header().Set("Api-Version", "1.47")
			w.Header().Set("Ostype", "linux")
			fmt.Fprint(w, "OK")
		case path == "/info":
			reply(w, 200, `{"ID":"fake","Name":"fake","OperatingSystem":"fake","OSType":"linux","ServerVersion":"27.0.0","Labels":[]}`)
		case path == "/version":
			reply(w, 200, `{"ApiVersion":"1.47","MinAPIVersion":"1.24","Version":"27.0.0","Os":"linux"}`)
		case strings.HasPrefix(path, "/images/") && hasImage:
			reply(w, 200, `{"Id":"sha256:0000000000000000000000000000000000000000000000000000000000000000"}`)
		case strings.HasPrefix(path, "/images/"):
			reply(w, 404, `{"message":"No such image"}`)
		case strings.HasPrefix(path, "/distribution/") && registry:
			reply(w, 200, `{"Descriptor":{"mediaType":"application/vnd.oci.image.index.v1+json",`+
				`"digest":"sha256:0000000000000000000000000000000000000000000000000000000000000000","size":1},"Platforms":[]}`)
		case strings.HasPrefix(path, "/distribution/"):
			reply(w, 500, `{"message":"Get \"https://registry-1.docker.io/v2/\": dial tcp: lookup registry-1.docker.io: no such host"}`)
		default:
			reply(w, 404, `{"message":"not in the fake"}`)
		}
	})}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	return f
}
