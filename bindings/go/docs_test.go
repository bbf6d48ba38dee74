package mfa_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The example of docs/bindings/go.md is a program that runs, as a user's
// module with the binding replaced by this folder.
func TestDocsExample(t *testing.T) {
	page, err := os.ReadFile("../../docs/bindings/go.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(page)
	start := strings.Index(text, "```go\npackage main\n")
	if start < 0 {
		t.Fatal("no program in docs/bindings/go.md")
	}
	program := text[start+len("```go\n"):]
	program = program[:strings.Index(program, "```")]
	here, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	module := "module example.com/docs\n\ngo 1.19\n\nrequire libmfa/mfa v0.0.0\n\nreplace libmfa/mfa => " + here + "\n"
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(module), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(program), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "run", ".")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "otpauth://totp/ACME:alice%40example.com?") ||
		!strings.Contains(string(out), "signed in with totp") {
		t.Fatalf("the docs' example: %v\n%s", err, out)
	}
}
