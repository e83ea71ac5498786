// Decodes the file with github.com/shamaton/msgpack/v2 at v2.4.1 into an interface{}: exit 0
// decoded, 1 the library returned an error (a panic is Go's exit 2, a crash).
package main

import (
	"fmt"
	"os"

	"github.com/shamaton/msgpack/v2"
)

func main() {
	data, err := os.ReadFile(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	var v interface{}
	if err := msgpack.Unmarshal(data, &v); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
