package mfa

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"regexp"
)

// OutboxMessage is one SMS a Context opened with Options.SMSOutbox "sent".
type OutboxMessage struct {
	// Time is the Unix time of the send.
	Time int64 `json:"time"`
	// To is the strict E.164 number.
	To string `json:"to"`
	// Message is the text ("<code> is your verification code.").
	Message string `json:"message"`
	// Code is the six-digit code of Message, or "".
	Code string `json:"-"`
}

var outboxCode = regexp.MustCompile(`^(\d{6}) is your verification code\.$`)

// ReadOutbox returns the messages of an SMS outbox file, oldest first: a
// development and test aid (an outbox holds live codes in the clear; never
// use one in production). A file that does not exist holds no message; an
// unfinished last line (a writer mid-way) is left out.
func ReadOutbox(path string) ([]OutboxMessage, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	lines := bytes.Split(data, []byte("\n"))
	var messages []OutboxMessage
	for number, line := range lines[:len(lines)-1] { // the last is "" or unfinished
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var m OutboxMessage
		if err := json.Unmarshal(line, &m); err != nil {
			return nil, fmt.Errorf("%s:%d is not an outbox entry: %w", path, number+1, err)
		}
		if found := outboxCode.FindStringSubmatch(m.Message); found != nil {
			m.Code = found[1]
		}
		messages = append(messages, m)
	}
	return messages, nil
}

// OutboxCode returns the code of the newest message in an outbox file to
// phoneNumber ("" for any number), or "" when there is none.
func OutboxCode(path, phoneNumber string) (string, error) {
	messages, err := ReadOutbox(path)
	if err != nil {
		return "", err
	}
	for i := len(messages) - 1; i >= 0; i-- {
		if phoneNumber == "" || messages[i].To == phoneNumber {
			return messages[i].Code, nil
		}
	}
	return "", nil
}
