module github.com/hpccgold/hpccgold

go 1.26

require github.com/leanovate/gopter v0.2.11 // indirect
