package dbmon

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

func TestTheReadmeExampleIsTheQuickstartAndRuns(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	example, err := os.ReadFile("examples/quickstart/main.go")
	if err != nil {
		t.Fatal(err)
	}
	_, afterFence, found := strings.Cut(string(readme), "```go\n")
	block, _, closed := strings.Cut(afterFence, "```\n")
	if !found || !closed || block != string(example) {
		t.Fatal("README.md's first go block differs from examples/quickstart/main.go")
	}
	databaseID := fixtureEnv(t, "DBMON_TEST_DATABASE_ID")
	output, err := exec.Command("go", "run", "./examples/quickstart").CombinedOutput()
	if err != nil || !strings.Contains(string(output), databaseID+" monitored ") {
		t.Fatalf("go run ./examples/quickstart: %v\n%s", err, output)
	}
}
