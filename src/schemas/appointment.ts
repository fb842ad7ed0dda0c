import { z } from 'zod'
import { HttpUrl, PhoneNumber, Timestamp, Uuid } from './common.js'

export const AppointmentStatus = z.enum(['booked', 'confirmed', 'cancelled', 'completed', 'no_show'])
export type AppointmentStatus = z.infer<typeof AppointmentStatus>

export const Appointment = z.object({
  id: Uuid,
  caller_phone: PhoneNumber,
  caller_name: z.string(),
  appointment_date: z.iso.date(),
  appointment_time_start: Timestamp,
  appointment_time_end: Timestamp,
  service_type: z.string(),
  status: AppointmentStatus,
  calendar_event_link: HttpUrl,
  call_log_id: Uuid,
  contact_id: Uuid,
  created_at: Timestamp,
  updated_at: Timestamp,
})
export type Appointment = z.infer<typeof Appointment>
