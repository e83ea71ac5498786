module hardpack.adapters/go-tinylib-msgp

go 1.24

require github.com/tinylib/msgp v1.6.5

require github.com/philhofer/fwd v1.2.0 // indirect
