// Decodes the file with github.com/tinylib/msgp's runtime (msgp.ReadIntfBytes, what generated
// code falls back to for an interface{} field): exit 0 decoded, 1 the library returned an
// error (a panic is Go's exit 2, a crash).
package main

import (
	"fmt"
	"os"

	"github.com/tinylib/msgp/msgp"
)

func main() {
	data, err := os.ReadFile(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if _, _, err := msgp.ReadIntfBytes(data); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
