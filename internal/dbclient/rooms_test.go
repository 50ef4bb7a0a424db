// SPDX-License-Identifier: MPL-2.0

package dbclient

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// rooms are internal/dbclient's packages, from the floor up.
var rooms = []string{"connect", "session", "proof", "tenant"}

// TestRoomSurfaces keeps the lower rooms' APIs to what their callers use:
// every function, method and variable connect, session and proof export is
// used outside the room (by a room above it, the facade, or a test of
// another package). A name nobody outside uses is unexported again, so the
// API a newcomer reads is the one in use. (Types, their fields and
// constants travel in the values the used functions take and return. The
// operations' own surface, tenant.Server's methods, is surface_test.go's.)
// Methods are matched by name (".Name"), which can only let a name
// through, never fail one wrongly.
func TestRoomSurfaces(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..")
	outside := map[string]string{} // room -> the source of every Go file outside it
	var all []string
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		all = append(all, path)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, room := range rooms {
		var b strings.Builder
		dir := filepath.Join(root, "internal", "dbclient", room) + string(filepath.Separator)
		for _, path := range all {
			if strings.HasPrefix(path, dir) {
				continue
			}
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			b.Write(src)
			b.WriteByte('\n')
		}
		outside[room] = b.String()
	}
	for _, room := range rooms[:3] {
		for _, name := range exportedNames(t, room) {
			pattern := `\b` + room + `\.` + name.name + `\b`
			if name.member {
				pattern = `\.` + name.name + `\b`
			}
			if !regexp.MustCompile(pattern).MatchString(outside[room]) {
				t.Errorf("%s: %s is exported but used nowhere outside internal/dbclient/%s: unexport it", room, name, room)
			}
		}
	}
}

// interfaceMethods are methods that satisfy an interface of another
// package (error, fmt.Stringer, driver.Connector, net.Conn, syscall.Conn,
// the error classes): used through it, never by name.
var interfaceMethods = []string{"Error", "Unwrap", "String", "Connect", "Driver", "Verdict", "Read", "Write", "Close",
	"LocalAddr", "RemoteAddr", "SetDeadline", "SetReadDeadline", "SetWriteDeadline", "SyscallConn", "Network"}

type exportedName struct {
	name   string
	member bool // a method or a field
	where  string
}

func (n exportedName) String() string { return n.name + " (" + n.where + ")" }

// exportedNames lists the exported names room's non-test files declare.
func exportedNames(t *testing.T, room string) []exportedName {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(room, "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no files in %s: %v", room, err)
	}
	fset := token.NewFileSet()
	var out []exportedName
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		add := func(id *ast.Ident, member bool) {
			if id != nil && id.IsExported() {
				out = append(out, exportedName{id.Name, member, fset.Position(id.Pos()).String()})
			}
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				// Methods that satisfy an interface of another package
				// (Error, Unwrap, String, Connect, Verdict) are used
				// through it.
				if d.Recv != nil && slices.Contains(interfaceMethods, d.Name.Name) {
					continue
				}
				add(d.Name, d.Recv != nil)
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch spec := spec.(type) {
					case *ast.ValueSpec:
						if d.Tok == token.VAR {
							for _, n := range spec.Names {
								add(n, false)
							}
						}
					}
				}
			}
		}
	}
	return out
}
