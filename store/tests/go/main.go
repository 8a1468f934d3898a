// Go's own encoding/json as the judge of our documents: every document the
// store vectors pin (tests/vectors/store_*.json: expect_files *.json and the
// reencode cases' expect_text) is decoded into Go structs written from
// STORE.md §6 and must re-encode to the very same bytes; the lenient
// `reencode` inputs must read in Go as they read in Rust.
//
// Run by store/tests/go/check.sh (which installs Go when missing).
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

type TokenUsage struct {
	InputTokens         int         `json:"input_tokens"`
	CacheCreationTokens int         `json:"cache_creation_tokens"`
	CacheReadTokens     int         `json:"cache_read_tokens"`
	OutputTokens        int         `json:"output_tokens"`
	APICallCount        int         `json:"api_call_count"`
	SubagentTokens      *TokenUsage `json:"subagent_tokens,omitempty"`
}

type Attribution struct {
	CalculatedAt      time.Time `json:"calculated_at"`
	AgentLines        int       `json:"agent_lines"`
	AgentRemoved      int       `json:"agent_removed"`
	HumanAdded        int       `json:"human_added"`
	HumanModified     int       `json:"human_modified"`
	HumanRemoved      int       `json:"human_removed"`
	TotalCommitted    int       `json:"total_committed"`
	TotalLinesChanged int       `json:"total_lines_changed"`
	AgentPercentage   float64   `json:"agent_percentage"`
	MetricVersion     int       `json:"metric_version,omitempty"`
}

type SessionFilePaths struct {
	Metadata          string `json:"metadata"`
	Transcript        string `json:"transcript,omitempty"`
	CompactTranscript string `json:"compact_transcript,omitempty"`
	ContentHash       string `json:"content_hash,omitempty"`
	Prompt            string `json:"prompt"`
}

type CheckpointSummary struct {
	CLIVersion          string             `json:"cli_version,omitempty"`
	CheckpointID        string             `json:"checkpoint_id"`
	Strategy            string             `json:"strategy"`
	Branch              string             `json:"branch,omitempty"`
	CommitSHA           string             `json:"commit_sha,omitempty"`
	CheckpointsCount    int                `json:"checkpoints_count"`
	FilesTouched        []string           `json:"files_touched"`
	Sessions            []SessionFilePaths `json:"sessions"`
	TokenUsage          *TokenUsage        `json:"token_usage,omitempty"`
	CombinedAttribution *Attribution       `json:"combined_attribution,omitempty"`
	HasReview           bool               `json:"has_review,omitempty"`
	HasInvestigation    bool               `json:"has_investigation,omitempty"`
	Imported            bool               `json:"imported,omitempty"`
}

type CodeLearning struct {
	Path    string `json:"path"`
	Line    int    `json:"line,omitempty"`
	EndLine int    `json:"end_line,omitempty"`
	Finding string `json:"finding"`
}

type LearningsSummary struct {
	Repo     []string       `json:"repo"`
	Code     []CodeLearning `json:"code"`
	Workflow []string       `json:"workflow"`
}

type Summary struct {
	Intent    string           `json:"intent"`
	Outcome   string           `json:"outcome"`
	Learnings LearningsSummary `json:"learnings"`
	Friction  []string         `json:"friction"`
	OpenItems []string         `json:"open_items"`
}

type SessionMetrics struct {
	DurationMs        int64 `json:"duration_ms,omitempty"`
	TurnCount         int   `json:"turn_count,omitempty"`
	ContextTokens     int   `json:"context_tokens,omitempty"`
	ContextWindowSize int   `json:"context_window_size,omitempty"`
}

// SkillEvent's fields are not in STORE.md; the vectors only hold {"name"}.
type SkillEvent struct {
	Name string `json:"name"`
}

type Metadata struct {
	CLIVersion                  string          `json:"cli_version,omitempty"`
	CheckpointID                string          `json:"checkpoint_id"`
	SessionID                   string          `json:"session_id"`
	Strategy                    string          `json:"strategy"`
	CreatedAt                   time.Time       `json:"created_at"`
	Branch                      string          `json:"branch,omitempty"`
	CommitSHA                   string          `json:"commit_sha,omitempty"`
	CheckpointsCount            int             `json:"checkpoints_count"`
	SaveStepCount               int             `json:"save_step_count,omitempty"`
	FilesTouched                []string        `json:"files_touched"`
	Agent                       string          `json:"agent,omitempty"`
	Model                       string          `json:"model"`
	TurnID                      string          `json:"turn_id,omitempty"`
	IsTask                      bool            `json:"is_task,omitempty"`
	ToolUseID                   string          `json:"tool_use_id,omitempty"`
	TranscriptIdentifierAtStart string          `json:"transcript_identifier_at_start,omitempty"`
	CheckpointTranscriptStart   int             `json:"checkpoint_transcript_start,omitempty"`
	TranscriptLinesAtStart      int             `json:"transcript_lines_at_start,omitempty"`
	CompactTranscriptStart      *int            `json:"compact_transcript_start,omitempty"`
	TokenUsage                  *TokenUsage     `json:"token_usage,omitempty"`
	SkillEventsVersion          int             `json:"skill_events_version,omitempty"`
	SkillEvents                 []SkillEvent    `json:"skill_events,omitempty"`
	SessionMetrics              *SessionMetrics `json:"session_metrics,omitempty"`
	Summary                     *Summary        `json:"summary,omitempty"`
	InitialAttribution          *Attribution    `json:"initial_attribution,omitempty"`
	PromptAttributions          json.RawMessage `json:"prompt_attributions,omitempty"`
	Kind                        string          `json:"kind,omitempty"`
	ReviewSkills                []string        `json:"review_skills,omitempty"`
	ReviewPrompt                string          `json:"review_prompt,omitempty"`
	InvestigateRunID            string          `json:"investigate_run_id,omitempty"`
	InvestigateTopic            string          `json:"investigate_topic,omitempty"`
}

type TaskCheckpoint struct {
	SessionID      string `json:"session_id"`
	ToolUseID      string `json:"tool_use_id"`
	CheckpointUUID string `json:"checkpoint_uuid"`
	AgentID        string `json:"agent_id,omitempty"`
}

func reencode(kind string, text string) (string, error) {
	var v any
	switch kind {
	case "summary":
		v = &CheckpointSummary{}
	case "metadata":
		v = &Metadata{}
	case "task":
		v = &TaskCheckpoint{}
	default:
		return "", fmt.Errorf("unknown document %q", kind)
	}
	if err := json.Unmarshal([]byte(text), v); err != nil {
		return "", err
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return out.String(), nil
}

func kindOf(path string) string {
	switch {
	case path == "metadata.json":
		return "summary"
	case strings.HasPrefix(path, "tasks/") && strings.HasSuffix(path, "/checkpoint.json"):
		return "task"
	case strings.HasSuffix(path, "/metadata.json"):
		return "metadata"
	}
	return ""
}

type vectorCase struct {
	Name        string            `json:"name"`
	Op          string            `json:"op"`
	Document    string            `json:"document"`
	ExpectFiles map[string]string `json:"expect_files"`
	ExpectText  *string           `json:"expect_text"`
	ExpectError *string           `json:"expect_error"`
	Input       string            `json:"input"`
}

func main() {
	dir := os.Args[1]
	files, _ := filepath.Glob(filepath.Join(dir, "store_*.json"))
	checked, failed := 0, 0
	for _, file := range files {
		raw, err := os.ReadFile(file)
		if err != nil {
			panic(err)
		}
		var doc struct{ Cases []vectorCase }
		if err := json.Unmarshal(raw, &doc); err != nil {
			panic(err)
		}
		for _, c := range doc.Cases {
			check := func(what, kind, text string) {
				checked++
				got, err := reencode(kind, text)
				if err != nil || got != text {
					failed++
					fmt.Printf("FAIL %s: %s (%v)\n--- ours\n%s--- go\n%s\n", c.Name, what, err, text, got)
				}
			}
			for path, text := range c.ExpectFiles {
				if kind := kindOf(path); kind != "" {
					check(path, kind, text)
				}
			}
			if c.Op == "reencode" && c.ExpectText != nil {
				check("reencode", c.Document, *c.ExpectText)
				// Go reads the lenient input exactly as we do.
				checked++
				if got, err := reencode(c.Document, c.Input); err != nil || got != *c.ExpectText {
					failed++
					fmt.Printf("FAIL %s: Go reads the input differently (%v)\n%s\n", c.Name, err, got)
				}
			}
			if c.Op == "reencode" && c.ExpectError != nil {
				checked++
				if _, err := reencode(c.Document, c.Input); err == nil {
					failed++
					fmt.Printf("FAIL %s: Go accepts what we refuse\n", c.Name)
				}
			}
		}
	}
	fmt.Printf("%d passed, %d failed\n", checked-failed, failed)
	if failed > 0 || checked == 0 {
		os.Exit(1)
	}
}
