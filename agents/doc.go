// Package agents defines the agents a main agent can delegate to with the
// Task tool: their definitions, the loaders that read them from Markdown
// files and config.json, the layered registry that merges them, the
// built-ins, and how a child run's tools and model are resolved.
//
// An agent file is Markdown with YAML frontmatter, the format of Claude
// Code's subagents, which work unchanged:
//
//	---
//	name: code-reviewer
//	description: Reviews code for quality and security. Use it after code changes.
//	tools: Read, Grep, Glob
//	model: light
//	---
//	You are a senior code reviewer. …
//
// Load reads such files from the project (.offshoot/agents, .claude/agents),
// the user's home (~/.offshoot/agents, ~/.claude/agents), the "agents" of
// the config.json files, the program (Options.Agents, --agents) and the
// built-ins (general-purpose, explore, plan, summary), and merges them by
// name, the project first. It reads real files tolerantly — frontmatter that
// is not valid YAML, Claude Code tool names, names that need a slug, unknown
// keys — and keeps every problem as a Diagnostic with its file and line:
// Registry.Errors for definitions left out, Registry.Warnings for the rest.
// Format writes definitions strictly.
//
// A Task tool finds a definition with Registry.Find, lists the agents with
// Registry.Listing (or shows them to the main agent with Section), and
// prepares a child run with Definition.ResolveTools and
// Definition.ResolveModel.
package agents
