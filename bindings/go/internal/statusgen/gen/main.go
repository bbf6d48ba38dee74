// Command gen writes status_gen.go from mfa_types.h (see package statusgen):
//
//	go run ./internal/statusgen/gen ../../include/mfa_types.h status_gen.go
package main

import (
	"fmt"
	"os"

	"libmfa/mfa/internal/statusgen"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: gen <mfa_types.h> <status_gen.go>")
		os.Exit(2)
	}
	header, err := os.ReadFile(os.Args[1])
	if err == nil {
		var source []byte
		if source, err = statusgen.Generate(header); err == nil {
			err = os.WriteFile(os.Args[2], source, 0o644)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
