module hardpack.adapters/go-shamaton-v2.4.0

go 1.22

require github.com/shamaton/msgpack/v2 v2.4.0
