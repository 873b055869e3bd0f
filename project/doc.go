// Package project reads what a repository set up for Claude Code holds
// besides its agents, so that it works as it is:
//
//   - its memory (LoadMemory: CLAUDE.md, .claude/CLAUDE.md, CLAUDE.local.md,
//     AGENTS.md and the user's ~/.claude/CLAUDE.md, with their @path
//     imports), which becomes the "Project Instructions" of the main agent
//     and of its agents;
//   - its skills (LoadSkills: .claude/skills/NAME/SKILL.md in the Agent
//     Skills format), which the Skill tool (SkillTool) lists and loads;
//   - its slash commands (LoadCommands: .claude/commands/NAME.md), prompt
//     templates the user runs as /NAME ARGS (Command.Expand).
//
// offshoot reads the same files from .offshoot/ too; its own names win
// over .claude/ on a clash, as for agents.
//
// A repository is untrusted input: every file is read as a regular file
// only, through a bound, never through a symbolic link that leads out of
// the project, and nothing here runs a command. What was read and what
// was left out, and why, is listed (Memory.Files, Memory.LeftOut) so that
// a program shows its user what instructs the agent.
package project
