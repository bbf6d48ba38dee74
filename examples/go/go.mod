module example.com/mfaserver

go 1.19

require libmfa/mfa v0.0.0

replace libmfa/mfa => ../../bindings/go
