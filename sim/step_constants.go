package sim

// Exported helpers for the CUDA backend (package gpu): the step's constants as the CPU step derives them,
// so that both backends take them from one definition.

// Softness is a soft constraint's coefficients for one sub-step (Box2D v3's soft step): BiasRate turns
// a position error into a velocity bias; MassScale and ImpulseScale soften the effective mass and leak
// the accumulated impulse; Compliance (1 / a2) is the row's compliance relative to its inverse mass.
type Softness struct {
	BiasRate, MassScale, ImpulseScale, Compliance float32
}

// StepConstants are the per-step values the velocity solvers derive from the settings.
type StepConstants struct {
	H, InvH float32 // sub-step and its inverse
	// Contact is the soft contact between two moving bodies, Static the stiffer one against a static or
	// kinematic body, Joint the joints' (which depends on the solver), Limit the joints' limit rows'.
	Contact, Static, Joint, Limit Softness
}

// StepConstantsOf returns the constants Step uses for resolved settings s (World.Resolved).
func StepConstantsOf(s Settings) StepConstants {
	h, invH, soft, static, joint, limit := stepSoftness(&s)
	exp := func(x softness) Softness {
		return Softness{x.biasRate, x.massScale, x.impulseScale, x.compliance}
	}
	return StepConstants{H: h, InvH: invH, Contact: exp(soft), Static: exp(static), Joint: exp(joint), Limit: exp(limit)}
}

// stepSoftness derives the sub-step and the soft coefficients of contacts and joints from resolved
// settings.
func stepSoftness(s *Settings) (h, invH float32, soft, static, joint, limit softness) {
	h = s.Dt / float32(s.Substeps)
	invH = 1 / h
	// A soft contact is stable and accurate up to about a quarter of the sub-step rate (h omega < pi/2).
	hertz := min(s.ContactHertz, 0.25*invH)
	soft = makeSoft(hertz, s.DampingRatio, h)
	// Contacts with static bodies carry whole stacks: twice as stiff (Box2D v3 does the same).
	static = makeSoft(min(2*hertz, 0.5*invH), s.DampingRatio, h)
	// Joints are stiffer than contacts (Box2D v3 takes twice the contact frequency) and less damped.
	// Under Jacobi the split masses make a joint's row see a fraction of each body, and at twice the
	// contact frequency a 10-link chain with a 100x heavier end grew an oscillation and came apart
	// after 8 s (at 1.5x it wobbled): Jacobi's joints run at the contact frequency.
	jh := min(2*hertz, 0.5*invH)
	limit = makeSoft(jh, jointDampingRatio, h)
	if SolverOf(s.Solver).traits().split {
		jh = hertz
	}
	joint = makeSoft(jh, jointDampingRatio, h)
	// The limit rows keep the stiffer frequency under Jacobi too. A limit row at its stop catches a
	// blow (a landing ragdoll's forearm at its elbow's straight stop) with each body's split share,
	// 1/c of it, per pass: at the contact frequency the ragdoll pile's elbows passed their stops by up
	// to 9 degrees, at twice it by 4 (PGS: 2). A limit pushes only, one row per stop, so it does not
	// form the chain of equality rows that oscillated at twice the frequency.
	return
}

// stepContext is the step's read-only constants (Box2D v3's b2StepContext): the executor fixes them in
// prepare, before any stage of the step runs, and every stage reads them from the plan; no stage
// writes them.
type stepContext struct {
	h, invH       float32
	soft          softness
	staticSoft    softness
	maxPush       float32
	restThreshold float32
	anchorReach   float32 // friction anchors further apart than this are dropped
}
