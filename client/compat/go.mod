// An integrator's module, outside hyscribe's: it requires the client as a
// customer does (the replace stands for `go get`) and is built and tested
// with the oldest Go the client supports (make test: GOTOOLCHAIN=local).
module example.com/integrator

go 1.22

require github.com/hyscribe/hyscribe/client v0.0.0

replace github.com/hyscribe/hyscribe/client => ../
