Feature: Transcribing a recording from start to finish
  As a Business customer
  I want to create a job, upload my MP3 recording and fetch the Armenian transcript
  So that my own systems can use what was said

  Background:
    Given I have a Business account with 600 seconds of audio remaining

  Scenario: A single-voice recording is transcribed and fetched by polling
    When I create a "single_voice" job with the metadata:
      """
      {"crmId": "C-1042", "agent": {"name": "Արամ Պետրոսյան", "extension": 214, "vip": true}, "tags": ["զանգ", "վաճառք"], "score": 4.5, "note": null}
      """
    Then the response status is 200
    And the response gives a docId and an upload address
    When I check the job
    Then the job is "uploading"
    And the job shows exactly the fields docId, status, createdAt, type, duration and metadata
    And the job's duration is null
    When I upload "speech-mono-16k.mp3" to the job's upload address
    Then the upload is accepted
    When I poll the job until it is finished
    Then the job is "transcribed"
    And the job shows exactly the fields docId, status, createdAt, type, duration, metadata, transcription, title, resolution and languageCode
    And while the job was unfinished, no answer showed a transcription, title, resolution, language code or error
    And the job's docId is the one given at creation
    And the job's type is "single_voice"
    And the job's language code is "hy-AM"
    And the job's duration is about 5.58 seconds
    And the job's metadata is exactly what I sent
    And the job's creation time is an ISO 8601 timestamp of when I created it
    And the job's transcription, title and resolution are Armenian text
    And the job's title is one line of at most 80 characters
    And the job's resolution is one paragraph of at most 600 characters
    And the job's transcription has no speaker labels

  Scenario: A job created without metadata shows an empty metadata object
    When I submit "speech-mono-16k.mp3" as a "single_voice" job
    And I poll the job until it is finished
    Then the job is "transcribed"
    And the job's metadata is {}

  Scenario: A job can name one of my checklists
    Given I have a checklist "Call quality" in my account
    When I submit "speech-mono-16k.mp3" as a "single_voice" job with that checklist
    And I poll the job until it is finished
    Then the job is "transcribed"

  Scenario: A phone call recorded in stereo is transcribed with the two speakers labelled
    When I submit "call-stereo-22k.mp3" as a "phone_call" job
    And I poll the job until it is finished
    Then the job is "transcribed"
    And the job's type is "phone_call"
    And the job's duration is about 6.06 seconds
    And the job's transcription has one line per turn, labelled in this order:
      | Խոսնակ 1 |
      | Խոսնակ 2 |
      | Խոսնակ 1 |
      | Խոսնակ 2 |
    And the job's transcription uses exactly the two labels "Խոսնակ 1" and "Խոսնակ 2"

  Scenario: A phone call recorded in mono is split into its two speakers
    When I submit "call-mono-16k.mp3" as a "phone_call" job
    And I poll the job until it is finished
    Then the job is "transcribed"
    And the job's type is "phone_call"
    And the job's duration is about 16.88 seconds
    And the job's transcription has one line per turn, labelled in this order:
      | Խոսնակ 1 |
      | Խոսնակ 2 |
      | Խոսնակ 1 |
      | Խոսնակ 2 |
    And the job's transcription uses exactly the two labels "Խոսնակ 1" and "Խոսնակ 2"

  Scenario: A two-voice recording sent as single_voice gets no speaker labels
    When I submit "call-mono-16k.mp3" as a "single_voice" job
    And I poll the job until it is finished
    Then the job is "transcribed"
    And the job's transcription has no speaker labels

  Scenario: A phone call without speech fails saying so
    When I submit "silence-mono-44k.mp3" as a "phone_call" job
    And I poll the job until it is finished
    Then the job is "failed"
    And the job's error mentions "no speech detected in the recording"
    And my account still has 600 seconds of audio remaining
