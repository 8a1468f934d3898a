// Secret redaction in the wasm-bindgen package (pkg/nodejs and pkg/web, built
// by scripts/wasm): the same functions and Redactor as the Node package. The
// shared vectors (tests/js, TARGET=wasm) cover the semantics.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { readFileSync } from 'node:fs'

const wasm = createRequire(import.meta.url)('../pkg/nodejs/agent_checkpoint_wasm.js')

const GITHUB = 'ghp_7Hq2Lx9Vb4Nc8Rt1Yw5Ze3Ka6Md0Pf2Sg4Jx'
const AWS = 'AKIAYRWQG5EJLPZLBYNP'
const utf8 = (s) => new TextEncoder().encode(s)

test('redactText, redactJson and redactBlob with the default redactor', () => {
  assert.equal(wasm.redactText(`my token is ${GITHUB} ok`), 'my token is REDACTED ok')
  assert.equal(wasm.redactText("PGPASSWORD='secret123'"), "PGPASSWORD='REDACTED'")
  assert.equal(wasm.redactText('PWD=/workspace/project'), 'PWD=/workspace/project')
  const jsonl = `{"type": "text",  "content": "key ${GITHUB}"}\n\n{"ok": true}\n`
  assert.equal(wasm.redactJson(jsonl), jsonl.replace(GITHUB, 'REDACTED'))
  const out = wasm.redactBlob('a/full.jsonl', utf8(jsonl))
  assert.ok(out instanceof Uint8Array)
  assert.equal(new TextDecoder().decode(out), jsonl.replace(GITHUB, 'REDACTED'))
  const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0, 0, ...utf8(`key=${AWS}`)])
  assert.deepEqual(wasm.redactBlob('image.png', png), png)
  assert.deepEqual(wasm.redactBlob('notes.txt', Buffer.from(`token: ${GITHUB}`)), utf8('token: REDACTED'))
})

test('options: personalData and rules', () => {
  const text = 'TICKET-123456 from jane@example.com, not noreply@github.com'
  assert.equal(wasm.redactText(text), text)
  assert.equal(wasm.redactText(text, { personalData: true }), 'TICKET-123456 from [REDACTED_EMAIL], not noreply@github.com')
  assert.equal(
    wasm.redactText(text, { personalData: true, rules: [['ticket', 'TICKET-[0-9]{6}']] }),
    'REDACTED from [REDACTED_EMAIL], not noreply@github.com',
  )
  assert.equal(wasm.redactJson('{"t": "TICKET-123456"}', { rules: [['ticket', 'TICKET-[0-9]{6}']] }), '{"t": "REDACTED"}')
  assert.equal(wasm.redactText(text, {}), text)
  assert.equal(wasm.redactText(text, null), text)
})

test('an invalid pattern throws an Error with code invalid_pattern', () => {
  const check = (e) => {
    assert.ok(e instanceof Error)
    assert.equal(e.code, 'invalid_pattern')
    return true
  }
  assert.throws(() => new wasm.Redactor({ rules: [['broken', '(unclosed']] }), (e) => {
    check(e)
    assert.equal(e.message, 'invalid pattern "(unclosed": rule "broken": unclosed group at byte 0')
    return true
  })
  assert.throws(() => wasm.redactText('x', { rules: [['broken', '(unclosed']] }), check)
  assert.throws(() => wasm.redactJson('x', { rules: [['ok', 'a'], ['broken', 'a{2,1}']] }), check)
  assert.throws(() => wasm.redactBlob('x.txt', utf8('x'), { rules: [['broken', '[z-a]']] }), check)
})

test('options of the wrong shape are a TypeError', () => {
  for (const options of [{ rules: 'ticket' }, { rules: [['only-a-name']] }, { rules: [['a', 1]] }, { rules: [42] }, { personalData: 'yes' }]) {
    assert.throws(() => wasm.redactText('x', options), TypeError, JSON.stringify(options))
    assert.throws(() => new wasm.Redactor(options), TypeError, JSON.stringify(options))
  }
})

test('Redactor: findings are rule names and UTF-8 byte ranges', () => {
  const r = new wasm.Redactor({ personalData: true, rules: [['ticket', 'TICKET-[0-9]+']] })
  assert.equal(r.personalData, true)
  assert.deepEqual(r.ruleNames, ['ticket'])
  const text = `é key=${AWS} and ${AWS} TICKET-1`
  const found = r.redactTextWithFindings(text)
  assert.deepEqual(found, {
    output: 'é key=REDACTED and REDACTED REDACTED',
    findings: [
      { rule: 'aws_access_key_id', start: 7, end: 27 },
      { rule: 'aws_access_key_id', start: 32, end: 52 },
      { rule: 'ticket', start: 53, end: 61 },
    ],
  })
  assert.equal(r.redactText(text), found.output)
  const doc = '{"db":{"password":"correct-horse-db","host":"db.example.com","user":"svc"}}'
  assert.deepEqual(r.redactJsonWithFindings(doc), {
    output: doc.replace('correct-horse-db', 'REDACTED'),
    findings: [{ rule: 'json_credential_field', start: 19, end: 35 }],
  })
  assert.equal(r.redactJson(doc), doc.replace('correct-horse-db', 'REDACTED'))
  const blob = r.redactBlobWithFindings('prompt.txt', utf8(`token: ${GITHUB}\n`))
  assert.ok(blob.output instanceof Uint8Array)
  assert.deepEqual(blob.output, utf8('token: REDACTED\n'))
  assert.deepEqual(blob.findings, [{ rule: 'github_pat', start: 7, end: 47 }])
  assert.deepEqual(r.redactBlob('prompt.txt', utf8(`token: ${GITHUB}\n`)), blob.output)
  r.free()
  const plain = new wasm.Redactor()
  assert.equal(plain.personalData, false)
  assert.deepEqual(plain.ruleNames, [])
  assert.deepEqual(plain.redactTextWithFindings('nothing here'), { output: 'nothing here', findings: [] })
  plain.free()
})

test('the web build redacts the same way', async () => {
  const web = await import('../pkg/web/agent_checkpoint_wasm.js')
  web.initSync({ module: readFileSync(new URL('../pkg/web/agent_checkpoint_wasm_bg.wasm', import.meta.url)) })
  const text = `key=${AWS} mail jane@example.com`
  assert.equal(web.redactText(text, { personalData: true }), wasm.redactText(text, { personalData: true }))
  assert.deepEqual(new web.Redactor().redactTextWithFindings(text), new wasm.Redactor().redactTextWithFindings(text))
})
