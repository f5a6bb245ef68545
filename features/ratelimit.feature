Feature: Polling rate limit
  As the operator of the service
  I want each API key limited to 60 polls per wall-clock minute
  So that one integration cannot crowd out the others, while telling it exactly when to retry

  Scenario: The 61st poll in a minute is refused until the next minute begins
    Given I have a Business account with 600 seconds of audio remaining
    And I have a second API key for my account
    And I have created a "single_voice" job
    And at least 10 seconds remain in the current minute
    When I poll the job 60 times in a row
    Then all of those polls are answered with status 200 within the same minute
    When I poll the job once more
    Then the response status is 429
    And the response has a Retry-After header of whole seconds between 1 and 60, no more than the seconds left in the current minute
    And the response is a JSON error whose message mentions "60 requests per minute"
    And the response is a JSON error with a message and a code
    When I poll the job with my second API key
    Then the response status is 200
    When I wait as many seconds as Retry-After said
    And I poll the job once more
    Then the response status is 200
