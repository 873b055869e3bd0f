package project

// Imports is imports, for the fuzz test.
var Imports = imports

// ParseSkill is Skills.parse, for the fuzz test.
func ParseSkill(data []byte) (Skill, bool, *Skills) {
	s := &Skills{}
	k, ok := s.parse("SKILL.md", "folder", data)
	return k, ok, s
}
