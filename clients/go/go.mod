module github.com/dbmon/dbmon-go

go 1.19
