// Decodes the file with github.com/vmihailenco/msgpack/v5 into interface{}: exit 0 decoded,
// 1 the library returned an error. With a second file, the stream reuse mode: after the
// first file's error, the valid document goes to the same Decoder, which answers
// recovered, refused-again, desynchronised or no-error.
package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"reflect"

	"github.com/vmihailenco/msgpack/v5"
)

func main() {
	data, err := os.ReadFile(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if len(os.Args) < 3 {
		var v interface{}
		if err := msgpack.Unmarshal(data, &v); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	valid, err := os.ReadFile(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	var stream bytes.Buffer
	stream.Write(data)
	dec := msgpack.NewDecoder(&stream)
	var failure error
	for {
		var v interface{}
		if failure = dec.Decode(&v); failure != nil {
			break
		}
	}
	if failure == io.EOF {
		fmt.Println("no-error")
		return
	}
	stream.Write(valid)
	var got, want interface{}
	if err := dec.Decode(&got); err != nil {
		fmt.Println("refused-again")
		fmt.Fprintln(os.Stderr, err)
		return
	}
	if err := msgpack.Unmarshal(valid, &want); err != nil || !reflect.DeepEqual(got, want) {
		came := fmt.Sprintf("%#v", got)
		if len(came) > 80 {
			came = came[:80]
		}
		fmt.Printf("desynchronised\n%s came back\n", came)
		return
	}
	fmt.Println("recovered")
}
