'use strict';
// The development outbox: a context opened with smsOutbox appends every SMS to a file as one
// JSON line {"time", "to", "message"} instead of sending it. A test and demo aid: it holds
// live codes in the clear.
const fs = require('node:fs');

const CODE = /^(\d{6}) is your verification code\.$/;

/** Every message in the outbox, oldest first: [{time, to, message, code}] (code parsed, or null). */
function readOutbox(file) {
  let data;
  try {
    data = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if (error.code === 'ENOENT') return [];
    throw error;
  }
  const lines = data.split('\n');
  lines.pop(); // "" or a line a writer has not finished
  const messages = [];
  lines.forEach((line, index) => {
    if (!line.trim()) return;
    let entry;
    try {
      entry = JSON.parse(line);
    } catch (error) {
      throw new SyntaxError(`${file}:${index + 1} is not JSON: ${error.message}`);
    }
    if (!entry || typeof entry.to !== 'string' || typeof entry.message !== 'string' || typeof entry.time !== 'number') {
      throw new SyntaxError(`${file}:${index + 1} is not an outbox entry {time, to, message}`);
    }
    const match = CODE.exec(entry.message);
    messages.push({ time: entry.time, to: entry.to, message: entry.message, code: match ? match[1] : null });
  });
  return messages;
}

/** The code of the last message (to `phoneNumber`, if given), or null. */
function outboxCode(file, phoneNumber) {
  const messages = readOutbox(file);
  for (let i = messages.length - 1; i >= 0; i--) {
    if (phoneNumber === undefined || phoneNumber === null || messages[i].to === phoneNumber) return messages[i].code;
  }
  return null;
}

module.exports = { readOutbox, outboxCode };
