module libmfa/mfa

go 1.19
