package offshoot

import (
	"context"

	"github.com/offshoot-dev/offshoot/project"
)

// endSkill ends the skill active in the client's session, if any: a
// skill lasts until the next query.
func (c *Client) endSkill(ctx context.Context) error {
	if _, ok := project.ActiveSkill(c.session); !ok {
		return nil
	}
	return c.session.Dispatch(ctx, project.SkillActivated{})
}

// preloads returns the instructions of every skill, by name, for the
// agents whose definitions list skills (task.Options.Skills).
func preloads(skills *project.Skills) map[string]string {
	if skills == nil || len(skills.All) == 0 {
		return nil
	}
	out := make(map[string]string, len(skills.All))
	for _, k := range skills.All {
		out[k.Name] = k.Body
	}
	return out
}
