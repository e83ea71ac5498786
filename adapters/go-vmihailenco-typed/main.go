// Decodes the file with github.com/vmihailenco/msgpack/v5 into []int64, as a service that
// expects a list of numbers does: exit 0 decoded, 1 the library returned an error.
package main

import (
	"fmt"
	"os"

	"github.com/vmihailenco/msgpack/v5"
)

func main() {
	data, err := os.ReadFile(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	var v []int64
	if err := msgpack.Unmarshal(data, &v); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
