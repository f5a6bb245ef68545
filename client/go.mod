module github.com/hyscribe/hyscribe/client

go 1.22
