// SPDX-License-Identifier: MPL-2.0

package testserver

import "testing"

// TestDockerKindImages (issue 47): the docker backend runs each server kind
// from its own image (a stand-in never from its family's), official by
// default, the kind's variable when set; MySQL 9.7 may run on the docker
// backend (auto mode still picks the local root for it) but not on dsn.
func TestDockerKindImages(t *testing.T) {
	for _, c := range []struct {
		kind, env, def string
	}{
		{KindMariaDB, EnvMySQLImage, defaultMySQLImage},
		{KindPostgres, EnvPostgresImage, defaultPostgresImage},
		{KindMySQL, EnvMySQL97Image, defaultMySQL97Image},
		{KindMariaDB11, EnvMariaDB11Image, defaultMariaDB11Image},
		{KindPostgres18, EnvPostgres18Image, defaultPostgres18Image},
	} {
		t.Run("kind_"+c.kind, func(t *testing.T) { // not counted as a run on that kind
			for _, env := range []string{EnvMySQLImage, EnvPostgresImage, EnvMySQL97Image, EnvMariaDB11Image, EnvPostgres18Image} {
				t.Setenv(env, "")
			}
			if got := dockerImage(c.kind); got != c.def {
				t.Errorf("default image %q, want %q", got, c.def)
			}
			t.Setenv(c.env, "example/"+c.kind+":x")
			if got := dockerImage(c.kind); got != "example/"+c.kind+":x" {
				t.Errorf("with %s set: image %q", c.env, got)
			}
			// Only the kind's own variable changes its image.
			for _, other := range []string{KindMariaDB, KindPostgres, KindMySQL, KindMariaDB11, KindPostgres18} {
				if other != c.kind && dockerImage(other) == "example/"+c.kind+":x" {
					t.Errorf("%s=%s changed the image of kind %s too", c.env, "example/"+c.kind+":x", other)
				}
			}
		})
	}

	mysql := startOptions{kind: KindMySQL}
	for backend, want := range map[string]bool{BackendLocal: false, BackendDocker: false, BackendDSN: true} {
		if got := mysql.needsLocal(backend); got != want {
			t.Errorf("MySQL on the %s backend: needsLocal %v, want %v", backend, got, want)
		}
	}
	t.Setenv(EnvBackend, "auto")
	if b, err := chooseBackend(EngineMySQL, mysql); err != nil || b != BackendLocal {
		t.Errorf("auto mode for MySQL chose %q (%v), want local", b, err)
	}
	t.Setenv(EnvBackend, BackendDocker)
	if b, err := chooseBackend(EngineMySQL, mysql); err != nil || b != BackendDocker {
		t.Errorf("docker mode for MySQL chose %q (%v), want docker", b, err)
	}
}
