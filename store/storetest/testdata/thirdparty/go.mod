module example.com/thirdparty

go 1.26.0

require github.com/offshoot-dev/offshoot v0.0.0

replace github.com/offshoot-dev/offshoot => ../../../..
