package main

import (
	"context"
	"fmt"
	"log"

	dbmon "github.com/dbmon/dbmon-go"
)

func main() {
	client := dbmon.NewClient() // DBMON_API_KEY and DBMON_BASE_URL from the environment
	databases := client.ListDatabasesIter(context.Background(), &dbmon.ListDatabasesParams{PerPage: 50})
	for databases.Next() {
		fmt.Println(databases.Value().ID, databases.Value().Name, databases.Value().Status)
	}
	if err := databases.Err(); err != nil {
		log.Fatal(err)
	}
}
