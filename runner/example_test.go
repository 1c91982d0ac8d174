package runner_test

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mcpconform/mcpconform/runner"
)

// Example drives cat, which echoes each line: a response written to it comes
// straight back and is matched by its id, after the notification queued
// before it.
func Example() {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	p, err := runner.Start(ctx, runner.Config{Command: []string{"cat"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	p.SendRaw([]byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"hi"}}`))
	p.SendRaw([]byte(`{"jsonrpc":"2.0","id":1,"result":{"answer":42}}`))
	resp, err := p.Await(ctx, json.RawMessage(`1`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("result:", string(resp.Result))
	fmt.Println("notifications:", len(p.Notifications()))
	exit := p.Close(context.Background())
	fmt.Println("escalation:", exit.Escalation, "code:", exit.Code, "unread:", len(exit.Remaining))
	// Output:
	// result: {"answer":42}
	// notifications: 1
	// escalation: eof code: 0 unread: 1
}
