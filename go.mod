module github.com/hpccgold/hpccgold

go 1.26
