// Secret redaction from Node: functions, options, the Redactor class,
// findings, errors, async variants. The shared vectors (tests/js, the
// redact.json cases) cover the semantics on every target.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const ac = require('..')

const GITHUB = 'ghp_7Hq2Lx9Vb4Nc8Rt1Yw5Ze3Ka6Md0Pf2Sg4Jx'
const AWS = 'AKIAYRWQG5EJLPZLBYNP'

/** The thrown value of `fn`, failing the test if it does not throw. */
function thrown(fn) {
  try {
    fn()
  } catch (e) {
    return e
  }
  assert.fail('expected a throw')
}

test('redactText replaces secrets and keeps everything else', () => {
  assert.equal(ac.redactText(`my token is ${GITHUB} ok`), 'my token is REDACTED ok')
  assert.equal(ac.redactText('DATABASE_URL=postgres://app:pwd123@db.example.com:5432/app'), 'DATABASE_URL=REDACTED')
  assert.equal(ac.redactText("PGPASSWORD='secret123'"), "PGPASSWORD='REDACTED'")
  assert.equal(ac.redactText('DB_PASSWORD=${DB_PASSWORD}'), 'DB_PASSWORD=${DB_PASSWORD}')
  assert.equal(ac.redactText('hello world'), 'hello world')
})

test('redactJson edits string values in place, JSONL line by line', () => {
  const line = `{"type": "text",  "content": "key ${GITHUB}", "session_id": "q8Zr2LmX0vB7nK4tY1wE9cH6jP3sD5fGaQ"}`
  const jsonl = `${line}\n\n{"ok": true}\n`
  const out = ac.redactJson(jsonl)
  assert.equal(out, jsonl.replace(GITHUB, 'REDACTED'))
  assert.equal(JSON.parse(out.split('\n')[0]).content, 'key REDACTED')
})

test('redactBlob takes a Buffer or a Uint8Array and always returns a new Buffer', () => {
  const doc = Buffer.from(JSON.stringify({ text: `key ${GITHUB}` }))
  const want = Buffer.from(doc.toString().replace(GITHUB, 'REDACTED'))
  assert.deepEqual(ac.redactBlob('a/full.jsonl', doc), want)
  const out = ac.redactBlob('meta.JSON', new Uint8Array(doc))
  assert.ok(Buffer.isBuffer(out))
  assert.deepEqual(out, want)
  const png = Buffer.concat([Buffer.from('\x89PNG\r\n\x1a\n\0\0key=', 'latin1'), Buffer.from(AWS)])
  const same = ac.redactBlob('image.png', png)
  assert.deepEqual(same, png)
  assert.notEqual(same, png, 'a copy, not the input')
  const notUtf8 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(` token=${GITHUB}`)])
  // Text that is not UTF-8 is still text: redacted, its invalid bytes kept.
  assert.deepEqual(ac.redactBlob('notes.txt', notUtf8), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(' REDACTED')]))
})

test('options: personalData and rules', () => {
  const text = 'TICKET-123456 from jane@example.com, not noreply@github.com'
  assert.equal(ac.redactText(text), text)
  assert.equal(ac.redactText(text, { personalData: true }), 'TICKET-123456 from [REDACTED_EMAIL], not noreply@github.com')
  assert.equal(
    ac.redactText(text, { personalData: true, rules: [['ticket', 'TICKET-[0-9]{6}']] }),
    'REDACTED from [REDACTED_EMAIL], not noreply@github.com',
  )
  assert.equal(ac.redactJson('{"t": "TICKET-123456"}', { rules: [['ticket', 'TICKET-[0-9]{6}']] }), '{"t": "REDACTED"}')
  assert.deepEqual(ac.redactBlob('t.txt', Buffer.from('TICKET-123456'), { rules: [['t', 'TICKET-\\d{6}']] }), Buffer.from('REDACTED'))
  assert.equal(ac.redactText(text, {}), text)
  assert.equal(ac.redactText(text, null), text)
})

test('an invalid pattern throws an Error with code invalid_pattern', () => {
  const e = thrown(() => new ac.Redactor({ rules: [['broken', '(unclosed']] }))
  assert.ok(e instanceof Error)
  assert.equal(e.code, 'invalid_pattern')
  assert.equal(e.message, 'invalid pattern "(unclosed": rule "broken": unclosed group at byte 0')
  assert.ok(ac.errorCodes().includes(e.code))
  assert.equal(ac.errorCategory(e.code), 'invalid_input')
  for (const fn of [
    () => ac.redactText('x', { rules: [['broken', '(unclosed']] }),
    () => ac.redactJson('x', { rules: [['ok', 'a'], ['broken', 'a{2,1}']] }),
    () => ac.redactBlob('x.txt', Buffer.from('x'), { rules: [['broken', '[z-a]']] }),
    () => ac.redactJsonAsync('x', { rules: [['broken', '(']] }),
  ]) {
    assert.equal(thrown(fn).code, 'invalid_pattern')
  }
})

test('arguments of the wrong shape throw', () => {
  assert.throws(() => ac.redactText('x', { rules: [['only-a-name']] }))
  assert.throws(() => ac.redactText('x', { rules: 'ticket' }))
  assert.throws(() => ac.redactText(42))
  assert.throws(() => ac.redactBlob('a.txt', 'text'))
})

test('findings: rule names and UTF-8 byte ranges, never the secret', () => {
  const r = new ac.Redactor()
  const text = `é key=${AWS} and ${AWS}`
  const found = r.redactTextWithFindings(text)
  assert.equal(found.output, 'é key=REDACTED and REDACTED')
  assert.deepEqual(found.findings, [
    { rule: 'aws_access_key_id', start: 7, end: 27 },
    { rule: 'aws_access_key_id', start: 32, end: 52 },
  ])
  assert.equal(Buffer.from(text).subarray(7, 27).toString(), AWS)
  const doc = '{"db":{"password":"correct-horse-db","host":"db.example.com","user":"svc"}}'
  assert.deepEqual(r.redactJsonWithFindings(doc), {
    output: doc.replace('correct-horse-db', 'REDACTED'),
    findings: [{ rule: 'json_credential_field', start: 19, end: 35 }],
  })
  const blob = r.redactBlobWithFindings('prompt.txt', Buffer.from(`token: ${GITHUB}\n`))
  assert.deepEqual(blob.output, Buffer.from('token: REDACTED\n'))
  assert.deepEqual(blob.findings, [{ rule: 'github_pat', start: 7, end: 47 }])
  assert.deepEqual(r.redactTextWithFindings('nothing here'), { output: 'nothing here', findings: [] })
})

test('Redactor surface', () => {
  const r = new ac.Redactor({ personalData: true, rules: [['ticket', 'TICKET-[0-9]+'], ['host', '[a-z]+\\.corp']] })
  assert.equal(r.personalData, true)
  assert.deepEqual(r.ruleNames, ['ticket', 'host'])
  assert.equal(r.redactText('TICKET-1 on db.corp mail jane@example.com'), 'REDACTED on REDACTED mail [REDACTED_EMAIL]')
  const plain = new ac.Redactor()
  assert.equal(plain.personalData, false)
  assert.deepEqual(plain.ruleNames, [])
})

test('async variants give the same results as the sync ones', async () => {
  const r = new ac.Redactor({ rules: [['ticket', 'TICKET-[0-9]{6}']] })
  const text = `TICKET-123456 key=${AWS}\n{"a": "${GITHUB}"}`
  const json = `{"a": "${GITHUB}"}\n`
  const bytes = Buffer.from(json)
  assert.equal(await ac.redactTextAsync(text), ac.redactText(text))
  assert.equal(await ac.redactJsonAsync(json), ac.redactJson(json))
  assert.deepEqual(await ac.redactBlobAsync('a.jsonl', bytes), ac.redactBlob('a.jsonl', bytes))
  assert.equal(await ac.redactTextAsync(text, { rules: [['ticket', 'TICKET-[0-9]{6}']] }), r.redactText(text))
  assert.equal(await r.redactTextAsync(text), r.redactText(text))
  assert.equal(await r.redactJsonAsync(json), r.redactJson(json))
  assert.deepEqual(await r.redactBlobAsync('a.jsonl', bytes), r.redactBlob('a.jsonl', bytes))
  assert.deepEqual(await r.redactTextWithFindingsAsync(text), r.redactTextWithFindings(text))
  assert.deepEqual(await r.redactJsonWithFindingsAsync(json), r.redactJsonWithFindings(json))
  assert.deepEqual(await r.redactBlobWithFindingsAsync('a.jsonl', bytes), r.redactBlobWithFindings('a.jsonl', bytes))
})

test('redactBlobAsync copies its input: changing it afterwards changes nothing', async () => {
  const data = Buffer.from(`token: ${GITHUB}`)
  const pending = ac.redactBlobAsync('a.txt', data)
  data.fill(0)
  assert.deepEqual(await pending, Buffer.from('token: REDACTED'))
})

test('the async variants leave the event loop free on a large transcript', async () => {
  const line = JSON.stringify({ type: 'tool_result', content: 'ok '.repeat(60) + `token=${GITHUB}` })
  const text = `${line}\n`.repeat(Math.ceil((16 << 20) / (line.length + 1)))
  let ticks = 0
  const timer = setInterval(() => ticks++, 1)
  try {
    const out = await ac.redactJsonAsync(text)
    assert.ok(!out.includes(GITHUB))
    assert.equal(out.split('REDACTED').length - 1, text.split(GITHUB).length - 1)
  } finally {
    clearInterval(timer)
  }
  assert.ok(ticks > 0, 'the timer never ran while redactJsonAsync worked')
})
