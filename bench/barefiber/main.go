// Command barefiber is make bench's yardstick: a fiber app whose poll
// endpoint returns a static JSON body, with no auth, store or rate limit, so
// the poll figure of hyscribe can be read against what fiber alone does on
// the same machine. It prints {"addr": …} once it listens on 127.0.0.1:0.
package main

import (
	"encoding/json"
	"fmt"
	"net"
	"os"

	"github.com/gofiber/fiber/v2"
)

func main() {
	body := []byte(`{"docId":"static","status":"uploading","duration":null,"metadata":{},"transcription":null,"title":null,"resolution":null,"languageCode":null}`)
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	app.Get("/api/getTranscription", func(c *fiber.Ctx) error {
		c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
		return c.Send(body)
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "barefiber:", err)
		os.Exit(1)
	}
	json.NewEncoder(os.Stdout).Encode(map[string]string{"addr": ln.Addr().String()})
	if err := app.Listener(ln); err != nil {
		fmt.Fprintln(os.Stderr, "barefiber:", err)
		os.Exit(1)
	}
}
