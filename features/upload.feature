Feature: Uploading the recording
  As a Business customer
  I want to upload my MP3 to the address the service gives me, once, within the upload window
  So that my recording is processed, and anything else is refused with a clear reason

  Background:
    Given I have a Business account with 600 seconds of audio remaining

  Scenario: The upload address is separate from the API
    When I create a "single_voice" job
    Then the job's upload address is an absolute http address outside of "/api"

  Scenario: A recording can be uploaded only once
    When I submit "speech-mono-16k.mp3" as a "single_voice" job
    And I upload "call-stereo-22k.mp3" to the job's upload address
    Then the upload is refused with status 409
    When I poll the job until it is finished
    Then the job is "transcribed"
    And the job's duration is about 5.58 seconds
    And the job's transcription has no speaker labels

  Scenario: Of two uploads at the same moment, exactly one is accepted
    Given I have created a "single_voice" job
    When I upload "speech-mono-16k.mp3" and "call-stereo-22k.mp3" to the job's upload address at the same moment
    Then exactly one upload is accepted and the other is refused with status 409
    When I poll the job until it is finished
    Then the job is "transcribed"
    And the job's duration is that of the accepted recording

  Scenario Outline: An upload address that was tampered with is refused (<part>)
    Given I have created a "single_voice" job
    When I upload "speech-mono-16k.mp3" to the job's upload address with <part> changed
    Then the upload is refused with status 403
    When I check the job
    Then the job is "uploading"
    When I upload "speech-mono-16k.mp3" to the job's upload address
    Then the upload is accepted
    When I poll the job until it is finished
    Then the job is "transcribed"

    Examples:
      | part                                  |
      | the signature                         |
      | the expiry time                       |
      | the docId, to that of another of my jobs |

  Scenario: An empty upload is refused
    Given I have created a "single_voice" job
    When I upload "empty.mp3" to the job's upload address
    Then the upload is refused with status 400
    When I check the job
    Then the job is "uploading"

  Scenario: An upload after the upload window has closed is refused and the job fails
    Given upload addresses are valid for only 3 seconds
    And I have created a "single_voice" job
    When I wait until the job's upload address has expired
    And I upload "speech-mono-16k.mp3" to the job's upload address
    Then the upload is refused with status 403
    When I poll the job until it is finished
    Then the job is "failed"
    And the job shows exactly the fields docId, status, createdAt, type, duration, metadata and error
    And the job's error mentions "upload window expired"
    And the job's duration is null

  Scenario Outline: Common kinds of MP3 file are accepted (<kind>)
    When I submit "<recording>" as a "single_voice" job
    And I poll the job until it is finished
    Then the job is "transcribed"
    And the job's duration is about <seconds> seconds

    Examples:
      | kind                                  | recording          | seconds |
      | MPEG-2, mono, 16 kHz                  | speech-mono-16k.mp3 | 5.58   |
      | MPEG-1, stereo, ID3v2 and ID3v1 tags  | id3-stereo-44k.mp3 | 2.04    |
      | variable bit rate with a Xing header  | vbr-stereo-44k.mp3 | 3.03    |

  Scenario Outline: A file that is not a usable MP3 fails with a reason (<recording>)
    When I submit "<recording>" as a "single_voice" job
    And I poll the job until it is finished
    Then the job is "failed"
    And the job shows exactly the fields docId, status, createdAt, type, duration, metadata and error
    And the job's error mentions <reason>
    And my account still has 600 seconds of audio remaining

    Examples:
      | recording      | reason                       |
      | tone.wav       | "WAV"                        |
      | tone.m4a       | "M4A" or "MP4"               |
      | tone.aac       | "AAC" or "not MP3"           |
      | tone.ogg       | "Ogg" or "not MP3"           |
      | tone.flac      | "FLAC" or "not MP3"          |
      | tone.aiff      | "AIFF" or "not MP3"          |
      | tone.mp2       | "Layer II" or "MP2" or "not MP3" |
      | random.bin     | "not MP3" or "not an MP3"    |
      | truncated.mp3  | "truncated" or "corrupt"     |

  Scenario: A recording without speech fails
    When I submit "silence-mono-44k.mp3" as a "single_voice" job
    And I poll the job until it is finished
    Then the job is "failed"
    And the job's error mentions "no speech detected"
