# Cloud Tasks carries outbound deliveries (signal webhooks, job callbacks) to the API's
# internal attempt route. The app schedules DESIGN's retry schedule itself (5 s, 5 min, 30 min,
# 2 h, 5 h, 10 h, 14 h, 20 h, 24 h with jitter) as one task per attempt, each with its
# schedule_time; the queue's own retries cover only a failure of the attempt route itself.
# Cloud Tasks keeps no dead letters (a task it stops retrying is deleted, and its delivery
# would stay `pending`), so it retries the route, unlimited in count, for 76 h: longer than the
# schedule, as the embedded task queue does before it dead-letters a task.

resource "google_cloud_tasks_queue" "deliveries" {
  name       = "deliveries"
  location   = var.region
  depends_on = [google_project_service.apis]

  rate_limits {
    max_dispatches_per_second = 50
    max_concurrent_dispatches = 100
  }

  retry_config {
    max_attempts       = -1
    min_backoff        = "5s"
    max_backoff        = "3600s"
    max_doublings      = 4
    max_retry_duration = "273600s"
  }

  stackdriver_logging_config {
    sampling_ratio = 1.0
  }
}
