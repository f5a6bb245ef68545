package domain

// StatusChange is the state change a job.status event records, if ev is
// one: the status entered and, for failed, the readable error.
func (e Event) StatusChange() (status Status, errMsg string, ok bool) {
	if e.Topic != TopicJobStatus {
		return "", "", false
	}
	var d JobStatusData
	if e.DecodeData(&d) != nil || d.Status == "" {
		return "", "", false
	}
	return d.Status, d.Error, true
}
